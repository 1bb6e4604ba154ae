export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  peakRssMiB: number;
  /** The server's own CPU time (user + system) per request answered, in µs. */
  cpuUsPerRequest: number;
  /** Share of one core the server used over the run: near 1 when its core is the bottleneck. */
  coreBusy: number;
}

export interface ScenarioResult {
  scenario: string;
  floor: Sample | undefined;
  service: Sample;
  /** Median of the per-round ratios service/floor; undefined without a floor. */
  ratio: number | undefined;
  /** Median of the per-round ratios floor CPU per request / service CPU per request. */
  cpuRatio: number | undefined;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/**
 * The machine's speed drifts over minutes by more than the differences measured, so each
 * round's service figure is divided by the same round's floor figure, taken moments apart,
 * and the median of those ratios is reported rather than a ratio of medians.
 */
export function pairedRatio(
  service: Sample[],
  floor: Sample[],
  figure: (sample: Sample) => number = (sample) => sample.rps,
): number | undefined {
  const ratios = service.flatMap((sample, round) => {
    const paired = floor[round];
    return paired && figure(paired) > 0 ? [figure(sample) / figure(paired)] : [];
  });
  return ratios.length > 0 ? median(ratios) : undefined;
}

/** Medians across rounds; the worst peak RSS and every error counted. */
export function summarise(samples: Sample[]): Sample {
  return {
    rps: median(samples.map((s) => s.rps)),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    non2xx: samples.reduce((sum, s) => sum + s.non2xx, 0),
    errors: samples.reduce((sum, s) => sum + s.errors, 0),
    peakRssMiB: Math.max(...samples.map((s) => s.peakRssMiB)),
    cpuUsPerRequest: median(samples.map((s) => s.cpuUsPerRequest)),
    coreBusy: median(samples.map((s) => s.coreBusy)),
  };
}

export function renderTable(results: ScenarioResult[]): string {
  const lines = [
    '| scenario | floor req/s | service req/s | ratio | CPU µs/req floor / service | CPU ratio | core busy % floor / service | service p50 / p99 ms | floor p99 ms | service peak RSS MiB | non-2xx / errors | floor non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { scenario, floor, service, ratio, cpuRatio } of results) {
    lines.push(
      `| ${scenario} | ${floor ? Math.round(floor.rps) : 'n/a'} | ${Math.round(service.rps)} | ${ratio?.toFixed(2) ?? 'n/a'} | ${floor ? Math.round(floor.cpuUsPerRequest) : 'n/a'} / ${Math.round(service.cpuUsPerRequest)} | ${cpuRatio?.toFixed(2) ?? 'n/a'} | ${floor ? Math.round(floor.coreBusy * 100) : 'n/a'} / ${Math.round(service.coreBusy * 100)} | ${service.p50} / ${service.p99} | ${floor?.p99 ?? 'n/a'} | ${service.peakRssMiB.toFixed(0)} | ${service.non2xx} / ${service.errors} | ${floor ? `${floor.non2xx} / ${floor.errors}` : 'n/a'} |`,
    );
  }
  return lines.join('\n');
}

/** Resident memory at a moment of the run: the last sample taken at or before it. */
function rssAt(timeline: [number, number][], second: number): number {
  let rss = timeline[0]?.[1] ?? 0;
  for (const [at, value] of timeline) if (at <= second) rss = value;
  return rss;
}

export function renderSoak(
  name: string,
  soak: Sample & { rssTimeline: [number, number][] },
  seconds: number,
): string {
  const at10 = rssAt(soak.rssTimeline, 10);
  const atEnd = rssAt(soak.rssTimeline, seconds);
  return [
    '| soak | req/s | p50 / p99 ms | RSS at 10 s MiB | RSS at end MiB | growth 10 s to end | peak RSS MiB | non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    `| ${name}, ${seconds} s | ${Math.round(soak.rps)} | ${soak.p50} / ${soak.p99} | ${at10.toFixed(0)} | ${atEnd.toFixed(0)} | ${Math.round(atEnd - at10) || 0} MiB | ${soak.peakRssMiB.toFixed(0)} | ${soak.non2xx} / ${soak.errors} |`,
  ].join('\n');
}

export function renderWorkers(scenario: string, one: Sample, two: Sample): string {
  return [
    '| scenario | WORKERS=1 req/s (one core) | WORKERS=2 req/s (both cores) | ratio | WORKERS=2 p50 / p99 ms | non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|',
    `| ${scenario} | ${Math.round(one.rps)} | ${Math.round(two.rps)} | ${(two.rps / one.rps).toFixed(2)} | ${two.p50} / ${two.p99} | ${two.non2xx} / ${two.errors} |`,
  ].join('\n');
}
