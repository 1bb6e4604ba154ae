import { benchScript, cpuSeconds, pinned, rssMiB, runToJson } from './processes.js';
import type { Sample } from './report.js';
import type { RequestSpec } from './scenarios.js';

export interface LoadSettings {
  connections: number;
  duration: number;
  key: string;
  /** The core the load generator is pinned to. */
  core: number;
  /** The store's size: `{id}` and `{pet}` are drawn from pets 1 to this (load.ts). */
  pets: number;
  /** Requests per second in all; as fast as the connections go when unset. */
  overallRate?: number;
}

export interface Measurement extends Sample {
  /** Resident memory every 250 ms, as [seconds since the start, MiB]. */
  rssTimeline: [number, number][];
  /**
   * When the load generator's requests began and ended (epoch ms): the measurement's window
   * also holds the generator's own start, while the server idles.
   */
  loadedFrom: number;
  loadedUntil: number;
}

/** Drives `requests` (each connection cycles through them) and samples the server's memory. */
export async function measure(
  pid: number,
  port: number,
  requests: RequestSpec[],
  settings: LoadSettings,
): Promise<Measurement> {
  const startedAt = performance.now();
  const rssTimeline: [number, number][] = [];
  const sample = () => {
    rssTimeline.push([(performance.now() - startedAt) / 1000, rssMiB(pid)]);
  };
  sample();
  const sampler = setInterval(sample, 250);
  const spec = {
    url: `http://127.0.0.1:${port}`,
    requests,
    petsUpTo: settings.pets,
    connections: settings.connections,
    duration: settings.duration,
    key: settings.key,
    overallRate: settings.overallRate,
  };
  const [command, commandArgs] = pinned(
    settings.core,
    process.execPath,
    benchScript('./load.ts', JSON.stringify(spec)),
  );
  try {
    const cpuBefore = cpuSeconds(pid);
    const { requests: total, ...result } = await runToJson<
      Omit<Sample, 'peakRssMiB' | 'cpuUsPerRequest' | 'coreBusy'> & {
        requests: number;
        loadedFrom: number;
        loadedUntil: number;
      }
    >(command, commandArgs);
    const cpu = cpuSeconds(pid) - cpuBefore;
    return {
      ...result,
      cpuUsPerRequest: total > 0 ? (cpu * 1e6) / total : 0,
      // The window also holds the load generator's start, when the server is idle.
      coreBusy: cpu / settings.duration,
      peakRssMiB: Math.max(...rssTimeline.map(([, rss]) => rss)),
      rssTimeline,
    };
  } finally {
    clearInterval(sampler);
  }
}
