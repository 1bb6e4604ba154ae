export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  peakRssMiB: number;
}

export interface ScenarioResult {
  scenario: string;
  floor: Sample | undefined;
  service: Sample;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** Medians across rounds; the worst peak RSS and every error counted. */
export function summarise(samples: Sample[]): Sample {
  return {
    rps: median(samples.map((s) => s.rps)),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    non2xx: samples.reduce((sum, s) => sum + s.non2xx, 0),
    errors: samples.reduce((sum, s) => sum + s.errors, 0),
    peakRssMiB: Math.max(...samples.map((s) => s.peakRssMiB)),
  };
}

export function renderTable(results: ScenarioResult[], floorList20: Sample | undefined): string {
  const lines = [
    '| scenario | floor req/s | service req/s | ratio | service p50 / p99 ms | floor p99 ms | service peak RSS MiB | non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { scenario, floor, service } of results) {
    const reference = floor ?? floorList20;
    const ratio = reference ? (service.rps / reference.rps).toFixed(2) : 'n/a';
    lines.push(
      `| ${scenario} | ${reference ? Math.round(reference.rps) : 'n/a'} | ${Math.round(service.rps)} | ${ratio} | ${service.p50} / ${service.p99} | ${reference?.p99 ?? 'n/a'} | ${service.peakRssMiB.toFixed(0)} | ${service.non2xx} / ${service.errors} |`,
    );
  }
  return lines.join('\n');
}
