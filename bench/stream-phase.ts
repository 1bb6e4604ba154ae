import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { measure, type LoadSettings } from './measure.js';
import { pinned } from './processes.js';
import { pairedRatio, summarise, type Sample } from './report.js';
import type { Scenario } from './scenarios.js';

export interface StreamPhaseOptions {
  floor: { pid: number; port: number };
  service: { pid: number; port: number };
  load: LoadSettings;
  /** Scenarios measured again against the floor while the streams are open. */
  scenarios: Scenario[];
  rounds: number;
  streams: number;
  /** Changes per second while the delivery latency is measured, and for how long. */
  changesPerSecond: number;
  changeSeconds: number;
}

interface StreamFigures {
  open: number;
  ended: number;
  deliveries: number;
  p50: number;
  p99: number;
  max: number;
}

/** The stream holder, on the load core; resolves once every stream is open. */
async function openStreams(options: StreamPhaseOptions) {
  const [command, args] = pinned(options.load.core, process.execPath, [
    '--import',
    'tsx',
    'bench/streams.ts',
    JSON.stringify({
      url: `http://127.0.0.1:${options.service.port}`,
      key: options.load.key,
      count: options.streams,
      sampled: Math.min(50, options.streams),
    }),
  ]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  while (!out.includes('ready\n')) await once(child.stdout, 'data');
  return {
    /** What the streams saw since they opened or since the last call. */
    figures: async (): Promise<StreamFigures> => {
      out = '';
      child.kill('SIGUSR2');
      while (!out.includes('\n')) await once(child.stdout, 'data');
      return JSON.parse(out) as StreamFigures;
    },
    close: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * With `streams` event streams open on the service: `changesPerSecond` creates while the
 * streams record how long each event took to arrive, then the chosen scenarios against the
 * floor again (their ratios must not move).
 */
export async function runStreamPhase(options: StreamPhaseOptions): Promise<string> {
  const streams = await openStreams(options);
  await streams.figures();
  const changes = await measure(
    options.service.pid,
    options.service.port,
    [
      {
        path: '/v1/pets',
        method: 'POST',
        body: JSON.stringify({ name: 'Streamed', categoryId: 3 }),
      },
    ],
    {
      ...options.load,
      connections: 10,
      duration: options.changeSeconds,
      overallRate: options.changesPerSecond,
    },
  );
  const figures = await streams.figures();
  const lines = [
    `| with ${options.streams} streams open | floor req/s | service req/s | ratio | service peak RSS MiB | streams ended so far |`,
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of options.scenarios) {
    const floor: Sample[] = [];
    const service: Sample[] = [];
    for (let round = 0; round < options.rounds; round++) {
      floor.push(
        await measure(options.floor.pid, options.floor.port, scenario.requests, options.load),
      );
      service.push(
        await measure(options.service.pid, options.service.port, scenario.requests, options.load),
      );
    }
    const summary = summarise(service);
    // A stream that falls too far behind is cut off: say so beside the figures it freed.
    const { ended } = await streams.figures();
    lines.push(
      `| ${scenario.name} | ${Math.round(summarise(floor).rps)} | ${Math.round(summary.rps)} | ${pairedRatio(service, floor)?.toFixed(2) ?? 'n/a'} | ${summary.peakRssMiB.toFixed(0)} | ${ended} |`,
    );
  }
  await streams.close();
  return [
    lines.join('\n'),
    [
      '| event delivery | streams open / ended | changes/s | deliveries sampled | p50 / p99 / max ms | service peak RSS MiB | non-2xx / errors |',
      '|---|---:|---:|---:|---:|---:|---:|',
      `| ${options.streams} streams, ${options.changeSeconds} s | ${figures.open} / ${figures.ended} | ${Math.round(changes.rps)} | ${figures.deliveries} | ${figures.p50} / ${figures.p99} / ${figures.max} | ${changes.peakRssMiB.toFixed(0)} | ${changes.non2xx} / ${changes.errors} |`,
    ].join('\n'),
  ].join('\n\n');
}
