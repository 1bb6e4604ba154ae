import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { measure, type LoadSettings } from './measure.js';
import { benchScript, pinned } from './processes.js';
import { summarise, type Sample } from './report.js';
import type { Scenario } from './scenarios.js';

interface Server {
  pid: number;
  port: number;
}

export interface StreamPhaseOptions {
  service: Server;
  load: LoadSettings;
  /** Scenarios measured without streams, then with streams open. */
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

/** A stream holder on the load core; resolves once every stream is open. */
async function openStreams(options: StreamPhaseOptions) {
  const server = options.service;
  const [command, args] = pinned(
    options.load.core,
    process.execPath,
    benchScript(
      './streams.ts',
      JSON.stringify({
        url: `http://127.0.0.1:${server.port}`,
        key: options.load.key,
        count: options.streams,
        sampled: Math.min(50, options.streams),
      }),
    ),
  );
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  // A holder that stops before every stream opened would otherwise leave this waiting for good.
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(
      `the stream holder for port ${server.port} exited with ${String(code)}: ${out.trim()}`,
    );
  });
  exited.catch(() => undefined);
  while (!out.includes('ready\n')) {
    if (out.includes('failed')) {
      throw new Error(`not every event stream opened on port ${server.port}: ${out.trim()}`);
    }
    await Promise.race([once(child.stdout, 'data'), exited]);
  }
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

/** Each scenario on the service, `rounds` times. */
async function measureScenarios(options: StreamPhaseOptions): Promise<Map<string, Sample[]>> {
  const samples = new Map<string, Sample[]>();
  for (const scenario of options.scenarios) {
    const taken: Sample[] = [];
    samples.set(scenario.name, taken);
    for (let round = 0; round < options.rounds; round++) {
      taken.push(
        await measure(options.service.pid, options.service.port, scenario.requests, options.load),
      );
    }
  }
  return samples;
}

/** Creates at `changesPerSecond` while the service's streams record each event's delay. */
async function deliver(options: StreamPhaseOptions) {
  return measure(
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
}

const figures = (samples: Sample[] | undefined) => summarise(samples ?? []);

/**
 * The chosen scenarios on the service without streams; then `streams` event streams open on
 * it: `changesPerSecond` creates while the streams record how long each event took to arrive,
 * then the scenarios again. Reads should not move; a create's deliveries are work added to
 * every create, and the CPU columns show what they cost.
 */
export async function runStreamPhase(options: StreamPhaseOptions): Promise<string> {
  const alone = await measureScenarios(options);
  const streams = await openStreams(options);
  await streams.figures();
  const changes = await deliver(options);
  const delivery = await streams.figures();
  const together = await measureScenarios(options);
  const { ended } = await streams.figures();
  await streams.close();
  const lines = [
    `| scenario, ${options.streams} streams open | req/s without / with | CPU µs/req without / with | p99 ms without / with | peak RSS MiB with |`,
    '|---|---:|---:|---:|---:|',
  ];
  for (const { name } of options.scenarios) {
    const before = figures(alone.get(name));
    const after = figures(together.get(name));
    lines.push(
      `| ${name} | ${Math.round(before.rps)} / ${Math.round(after.rps)} | ${Math.round(before.cpuUsPerRequest)} / ${Math.round(after.cpuUsPerRequest)} | ${before.p99} / ${after.p99} | ${after.peakRssMiB.toFixed(0)} |`,
    );
  }
  return [
    lines.join('\n'),
    `Streams ended early (cut off for falling behind): ${ended}.`,
    [
      '| event delivery | streams open / ended | changes/s | deliveries sampled | p50 / p99 / max ms | service peak RSS MiB | non-2xx / errors |',
      '|---|---:|---:|---:|---:|---:|---:|',
      `| ${options.streams} streams, ${options.changeSeconds} s | ${delivery.open} / ${delivery.ended} | ${Math.round(changes.rps)} | ${delivery.deliveries} | ${delivery.p50} / ${delivery.p99} / ${delivery.max} | ${changes.peakRssMiB.toFixed(0)} | ${changes.non2xx} / ${changes.errors} |`,
    ].join('\n'),
  ].join('\n\n');
}
