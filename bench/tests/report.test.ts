import { describe, expect, it } from 'vitest';
import { pairedRatio, renderSoak, renderTable, summarise, type Sample } from '../report.js';
import { cpuSeconds } from '../processes.js';

/** The bench's arithmetic: CI runs the bench only as a smoke, which cannot catch a wrong number. */
function sample(overrides: Partial<Sample>): Sample {
  return {
    rps: 1000,
    p50: 5,
    p99: 20,
    non2xx: 0,
    errors: 0,
    peakRssMiB: 100,
    cpuUsPerRequest: 100,
    coreBusy: 0.9,
    ...overrides,
  };
}

describe('pairedRatio', () => {
  it('divides each round by its own floor and takes the median, not a ratio of medians', () => {
    const service = [sample({ rps: 500 }), sample({ rps: 900 }), sample({ rps: 300 })];
    const floor = [sample({ rps: 1000 }), sample({ rps: 1000 }), sample({ rps: 300 })];
    // Per round 0.5, 0.9, 1.0: the median is 0.9. The ratio of medians would be 500/1000.
    expect(pairedRatio(service, floor)).toBe(0.9);
  });

  it('skips rounds without a floor figure, and answers undefined when none is left', () => {
    const service = [sample({ rps: 600 }), sample({ rps: 700 })];
    expect(pairedRatio(service, [sample({ rps: 0 }), sample({ rps: 1000 })])).toBe(0.7);
    expect(pairedRatio(service, [])).toBeUndefined();
  });

  it('divides floor CPU by service CPU when asked for the CPU ratio', () => {
    const service = [sample({ cpuUsPerRequest: 200 })];
    const floor = [sample({ cpuUsPerRequest: 50 })];
    const cpuRatio = pairedRatio(floor, service, (s) => s.cpuUsPerRequest);
    expect(cpuRatio).toBe(0.25);
  });
});

describe('summarise', () => {
  it('takes medians, the worst peak memory and every error', () => {
    const summary = summarise([
      sample({ rps: 3, p99: 30, peakRssMiB: 120, non2xx: 1, cpuUsPerRequest: 90 }),
      sample({ rps: 1, p99: 10, peakRssMiB: 140, errors: 2, cpuUsPerRequest: 70 }),
      sample({ rps: 2, p99: 20, peakRssMiB: 110, cpuUsPerRequest: 80 }),
    ]);
    expect(summary).toMatchObject({
      rps: 2,
      p99: 20,
      peakRssMiB: 140,
      non2xx: 1,
      errors: 2,
      cpuUsPerRequest: 80,
    });
  });
});

describe('rendering', () => {
  it('shows core busy as a percentage and n/a where the floor has no figure', () => {
    const row = renderTable([
      {
        scenario: 'REST get',
        floor: undefined,
        service: sample({ coreBusy: 0.954 }),
        ratio: undefined,
        cpuRatio: undefined,
      },
    ]).split('\n')[2];
    expect(row).toBe(
      '| REST get | n/a | 1000 | n/a | n/a / 100 | n/a | n/a / 95 | 5 / 20 | n/a | 100 | 0 / 0 | n/a |',
    );
  });

  it("shows the floor's failures beside the service's, so a broken floor cannot pass unseen", () => {
    const row = renderTable([
      {
        scenario: 'REST update',
        floor: sample({ non2xx: 7, errors: 1 }),
        service: sample({}),
        ratio: 1,
        cpuRatio: 1,
      },
    ]).split('\n')[2];
    expect(row?.endsWith('| 0 / 0 | 7 / 1 |')).toBe(true);
  });

  it('reports soak growth from the last sample at or before the 10th second to the end', () => {
    const rssTimeline: [number, number][] = [
      [0, 90],
      [9.9, 110],
      [10.2, 150],
      [60, 114],
    ];
    const row = renderSoak('mix', { ...sample({}), rssTimeline }, 60).split('\n')[2];
    expect(row).toContain('| 110 | 114 | 4 MiB |');
  });
});

describe('cpuSeconds', () => {
  it('reads this process: user plus system time, growing as it works', () => {
    const start = process.cpuUsage();
    const before = cpuSeconds(process.pid);
    // Spin for CPU time, not wall time: on a loaded machine 100 ms of wall time may hold far
    // less CPU time than the assertion below needs.
    const spent = () => {
      const { user, system } = process.cpuUsage(start);
      return user + system;
    };
    while (spent() < 150_000) Math.sqrt(Math.random());
    const after = cpuSeconds(process.pid);
    const { user, system } = process.cpuUsage(start);
    const measured = (user + system) / 1e6;
    // /proc counts in 1/100 s; process.cpuUsage's window holds the /proc one.
    expect(after - before).toBeGreaterThan(0.05);
    expect(Math.abs(after - before - measured)).toBeLessThan(0.03);
  });
});
