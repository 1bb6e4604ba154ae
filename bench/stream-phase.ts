import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { measure, type LoadSettings } from './measure.js';
import { pinned } from './processes.js';
import { pairedRatio, summarise, type Sample } from './report.js';
import type { Scenario } from './scenarios.js';

interface Server {
  pid: number;
  port: number;
}

export interface StreamPhaseOptions {
  floor: Server;
  service: Server;
  load: LoadSettings;
  /** Scenarios measured against the floor without streams, then with streams open on both. */
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
async function openStreams(options: StreamPhaseOptions, server: Server) {
  const [command, args] = pinned(options.load.core, process.execPath, [
    '--import',
    'tsx',
    'bench/streams.ts',
    JSON.stringify({
      url: `http://127.0.0.1:${server.port}`,
      key: options.load.key,
      count: options.streams,
      sampled: Math.min(50, options.streams),
    }),
  ]);
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

interface Pairs {
  floor: Sample[];
  service: Sample[];
}

/** Each scenario against the floor, `rounds` times, alternating who goes first. */
async function compare(options: StreamPhaseOptions): Promise<Map<string, Pairs>> {
  const pairs = new Map<string, Pairs>();
  for (const scenario of options.scenarios) {
    const entry: Pairs = { floor: [], service: [] };
    pairs.set(scenario.name, entry);
    for (let round = 0; round < options.rounds; round++) {
      const order =
        round % 2 === 0 ? (['floor', 'service'] as const) : (['service', 'floor'] as const);
      for (const who of order) {
        const { pid, port } = options[who];
        entry[who].push(await measure(pid, port, scenario.requests, options.load));
      }
    }
  }
  return pairs;
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

const ratioOf = ({ service, floor }: Pairs) => pairedRatio(service, floor)?.toFixed(2) ?? 'n/a';
const rps = (samples: Sample[]) => Math.round(summarise(samples).rps);
const cpu = (samples: Sample[]) => Math.round(summarise(samples).cpuUsPerRequest);

/**
 * The chosen scenarios against the floor without streams; then `streams` event streams open
 * on the service and as many on the floor (which writes the changes of each 20 ms to every
 * stream, as the service's feed does): `changesPerSecond` creates while the service's streams
 * record how long each event took to arrive, then the scenarios again. Reads should not move;
 * a create's deliveries are the same added work on both, and the CPU columns show what each
 * server pays for them.
 */
export async function runStreamPhase(options: StreamPhaseOptions): Promise<string> {
  const alone = await compare(options);
  const streams = await openStreams(options, options.service);
  const floorStreams = await openStreams(options, options.floor);
  await streams.figures();
  const changes = await deliver(options);
  const figures = await streams.figures();
  const together = await compare(options);
  const ended = (await streams.figures()).ended + (await floorStreams.figures()).ended;
  await Promise.all([streams.close(), floorStreams.close()]);
  const lines = [
    `| scenario, ${options.streams} streams open on each server | ratio without streams | ratio with streams | floor req/s without / with | service req/s without / with | CPU µs/req floor without / with | CPU µs/req service without / with | service peak RSS MiB with |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { name } of options.scenarios) {
    const before = alone.get(name) ?? { floor: [], service: [] };
    const after = together.get(name) ?? { floor: [], service: [] };
    lines.push(
      `| ${name} | ${ratioOf(before)} | ${ratioOf(after)} | ${rps(before.floor)} / ${rps(after.floor)} | ${rps(before.service)} / ${rps(after.service)} | ${cpu(before.floor)} / ${cpu(after.floor)} | ${cpu(before.service)} / ${cpu(after.service)} | ${summarise(after.service).peakRssMiB.toFixed(0)} |`,
    );
  }
  return [
    lines.join('\n'),
    `Streams ended early (cut off for falling behind, on either server): ${ended}.`,
    [
      '| event delivery | streams open / ended | changes/s | deliveries sampled | p50 / p99 / max ms | service peak RSS MiB | non-2xx / errors |',
      '|---|---:|---:|---:|---:|---:|---:|',
      `| ${options.streams} streams, ${options.changeSeconds} s | ${figures.open} / ${figures.ended} | ${Math.round(changes.rps)} | ${figures.deliveries} | ${figures.p50} / ${figures.p99} / ${figures.max} | ${changes.peakRssMiB.toFixed(0)} | ${changes.non2xx} / ${changes.errors} |`,
    ].join('\n'),
  ].join('\n\n');
}
