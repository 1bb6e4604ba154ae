import type { Sample } from './report.js';

/** The checkout may cost at most this much CPU per request against the reference's. */
export const CPU_LIMIT = 1.15;

/**
 * One round of one scenario: each server measured alone, moments apart, in an order that
 * rotates (the figures), then the reference and the checkout side by side (the verdict).
 */
export interface GuardRound {
  floor: Sample;
  reference: Sample;
  checkout: Sample;
  /**
   * The two builds loaded at once, sharing one core: whatever the machine does meanwhile (a
   * neighbour, a checkpoint, a slower minute) costs both alike, which measurements taken one
   * after the other cannot promise.
   */
  sideBySide: { reference: Sample; checkout: Sample };
}

export interface ScenarioRounds {
  scenario: string;
  rounds: GuardRound[];
}

/** Per round, the checkout's CPU per request over the reference's, side by side. */
export const cpuRatios = (rounds: GuardRound[]): number[] =>
  rounds.map(
    ({ sideBySide: { reference, checkout } }) =>
      checkout.cpuUsPerRequest / reference.cpuUsPerRequest,
  );

/**
 * Slower only when two successive rounds both say so: one round can meet a checkpoint or a
 * burst of another process, two in a row are the build.
 */
export function slower(ratios: number[], limit = CPU_LIMIT): boolean {
  return ratios.some(
    (ratio, round) => round > 0 && ratio > limit && (ratios[round - 1] ?? 0) > limit,
  );
}

/** The scenarios on which the checkout is slower than the reference. */
export const slowerScenarios = (results: ScenarioRounds[], limit = CPU_LIMIT): string[] =>
  results.filter(({ rounds }) => slower(cpuRatios(rounds), limit)).map(({ scenario }) => scenario);

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

const medianOf = (rounds: GuardRound[], pick: (round: GuardRound) => number) =>
  median(rounds.map(pick));

type Alone = 'floor' | 'reference' | 'checkout';

export function renderGuard(results: ScenarioRounds[]): string {
  const lines = [
    '| scenario | CPU µs/req floor / reference / checkout | checkout / reference side by side, per round | p99 ms floor / reference / checkout | p99 checkout / floor | non-2xx / errors |',
    '|---|---:|---|---:|---:|---:|',
  ];
  for (const { scenario, rounds } of results) {
    const cpu = (who: Alone) => Math.round(medianOf(rounds, (round) => round[who].cpuUsPerRequest));
    const p99 = (who: Alone) => medianOf(rounds, (round) => round[who].p99);
    const failures = rounds.reduce(
      (sum, { checkout, sideBySide }) =>
        sum +
        checkout.non2xx +
        checkout.errors +
        sideBySide.checkout.non2xx +
        sideBySide.checkout.errors,
      0,
    );
    const tail = median(rounds.map((round) => round.checkout.p99 / round.floor.p99));
    lines.push(
      `| ${scenario} | ${cpu('floor')} / ${cpu('reference')} / ${cpu('checkout')} | ${cpuRatios(
        rounds,
      )
        .map((ratio) => ratio.toFixed(2))
        .join(
          ', ',
        )} | ${p99('floor')} / ${p99('reference')} / ${p99('checkout')} | ${tail.toFixed(2)} | ${failures} |`,
    );
  }
  return lines.join('\n');
}
