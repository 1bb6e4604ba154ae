import { describe, expect, it } from 'vitest';
import { cpuRatios, renderGuard, slowerScenarios, type GuardRound } from '../guard-verdict.js';
import type { Sample } from '../report.js';

function sample(cpuUsPerRequest: number, p99 = 20): Sample {
  return {
    rps: 1e6 / cpuUsPerRequest,
    p50: 3,
    p99,
    non2xx: 0,
    errors: 0,
    peakRssMiB: 120,
    cpuUsPerRequest,
    coreBusy: 1,
  };
}

/** The checkout's sample beside the reference's, both loaded at once. */
const sideBySide = (reference: number, checkout: number) => ({
  reference: sample(reference),
  checkout: sample(checkout),
});

/** Rounds whose reference costs `reference` µs a request, each round drifting by up to ±7%. */
function rounds(reference: number[], checkoutFactor: number): GuardRound[] {
  return reference.map((cpu, round) => {
    // The same build measured beside it: the machine's drift, not the build.
    const checkout = cpu * checkoutFactor * (round % 2 === 0 ? 1.07 : 0.94);
    return {
      floor: sample(cpu * 0.8, 15),
      reference: sample(cpu),
      checkout: sample(checkout),
      sideBySide: sideBySide(cpu, checkout),
    };
  });
}

const drifting = [70, 95, 74, 88, 71];

describe('the bench guard', () => {
  it('passes a build identical to the reference, through ±7% of noise', () => {
    expect(slowerScenarios([{ scenario: 'REST get', rounds: rounds(drifting, 1) }])).toEqual([]);
  });

  it('fails a build 30% slower', () => {
    const results = [
      { scenario: 'REST get', rounds: rounds(drifting, 1) },
      { scenario: 'REST list 20', rounds: rounds(drifting, 1.3) },
    ];
    expect(slowerScenarios(results)).toEqual(['REST list 20']);
  });

  it('forgives one slow round, not two in a row', () => {
    const once: GuardRound[] = rounds(drifting, 1);
    once[2] = { ...(once[2] as GuardRound), sideBySide: sideBySide(74, 74 * 1.4) };
    expect(slowerScenarios([{ scenario: 'REST get', rounds: once }])).toEqual([]);
    const twice = [...once];
    twice[3] = { ...(twice[3] as GuardRound), sideBySide: sideBySide(88, 88 * 1.2) };
    expect(slowerScenarios([{ scenario: 'REST get', rounds: twice }])).toEqual(['REST get']);
  });

  it('judges by the builds side by side, not by each alone', () => {
    const apart = rounds(drifting, 1).map((round) => ({ ...round, checkout: sample(200) }));
    expect(slowerScenarios([{ scenario: 'REST get', rounds: apart }])).toEqual([]);
  });

  it('compares each round with the reference of the same round', () => {
    expect(cpuRatios(rounds([100, 50], 1)).map((ratio) => ratio.toFixed(2))).toEqual([
      '1.07',
      '0.94',
    ]);
  });

  it('reports CPU, the ratio of each round and the tail against the floor', () => {
    const table = renderGuard([{ scenario: 'REST get', rounds: rounds([100, 100, 100], 1) }]);
    expect(table).toContain(
      '| REST get | 80 / 100 / 107 | 1.07, 0.94, 1.07 | 15 / 20 / 20 | 1.33 | 0 |',
    );
  });
});
