import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measure, type LoadSettings } from './measure.js';
import { postgresCpuSeconds, rssMiB, stop, waitUntilAnswering } from './processes.js';
import { QUIET_LOAD, waitForQuiet } from './quiet.js';
import { recordRun } from './results.js';
import { DEFAULT_BENCH_PETS, seedBenchDatabase } from './seed.js';
import { buildService, startService } from './service.js';

const argv = process.argv.slice(2);
const { values: args } = parseArgs({
  args: argv,
  options: {
    database: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    record: { type: 'boolean', default: false },
    noisy: { type: 'boolean', default: false },
    /** The embedded store (PGlite in a new data folder each phase) instead of PostgreSQL. */
    embedded: { type: 'boolean', default: false },
  },
});
const KEY = 'bench-key';
const PORT = 4171;
const METRICS = 5171;
const base = `http://127.0.0.1:${String(PORT)}/v1`;
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const [serverCore, loadCore] = availableParallelism() > 1 ? [0, 1] : [0, 0];
const NEW_PET = JSON.stringify({ name: 'Hooked', categoryId: 2 });
const DEAD_ENDPOINTS = 20;

const startedAt = new Date();
const loadAtStart = await waitForQuiet();
buildService();

/** The endpoints' receiver: answers 200 at once, counts what arrives and notes when. */
let received = 0;
let arrivals: number[] = [];
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    arrivals.push(Date.now());
    res.writeHead(200).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hook = `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hook`;

/** Dead endpoints: a listener that takes every connection and never answers. */
const held = new Set<Socket>();
const blackHole = createTcpServer((socket) => {
  held.add(socket);
  socket.on('close', () => held.delete(socket));
});
await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
const deadHook = `http://127.0.0.1:${String((blackHole.address() as AddressInfo).port)}/dead`;

type Buckets = (readonly [string, number])[];

/** The service's lag histogram (commit to successful delivery), bucket by bucket. */
async function lagBuckets(): Promise<Buckets> {
  const text = await (await fetch(`http://127.0.0.1:${String(METRICS)}/metrics`)).text();
  return [
    ...text.matchAll(/^petstore_webhook_delivery_lag_seconds_bucket\{le="([^"]+)"\} (\d+)/gm),
  ].map(([, le = '', count = '0']) => [le, Number(count)] as const);
}

/** Quantiles (as bucket bounds) of the deliveries counted since `since`. */
function lagQuantiles(now: Buckets, since: Buckets = []) {
  const buckets = now.map(([le, n], i) => [le, n - (since[i]?.[1] ?? 0)] as const);
  const count = buckets.at(-1)?.[1] ?? 0;
  const at = (q: number) => buckets.find(([, n]) => n >= q * count)?.[0] ?? '?';
  return { p50: `≤ ${at(0.5)} s`, p99: `≤ ${at(0.99)} s`, count };
}

async function register(count: number, url = hook): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${base}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url, types: ['pet.created'] }),
    });
    if (response.status !== 201) throw new Error(`register: ${String(response.status)}`);
  }
}

async function waitForDeliveries(target: number, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (received < target && performance.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return (performance.now() - started) / 1000;
}

let dataDir: string | undefined;

/** Where a new service keeps its data: a new PGlite folder, or a freshly seeded database. */
async function freshStore(): Promise<Record<string, string>> {
  if (args.embedded) {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    dataDir = mkdtempSync(join(tmpdir(), 'petstore-webhooks-'));
    return { PGLITE_DIR: dataDir };
  }
  const url = await seedBenchDatabase(args.database, 'petstore_webhooks', DEFAULT_BENCH_PETS);
  return { DATABASE_URL: url };
}

/** The service on a fresh store, once ready: no endpoint of an earlier phase remains. */
async function freshService() {
  const server = startService(
    {
      ...(await freshStore()),
      PORT: String(PORT),
      METRICS_PORT: String(METRICS),
      API_KEYS: KEY,
      RATE_LIMIT: 'off',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    },
    serverCore,
  );
  await waitUntilAnswering(`http://127.0.0.1:${String(PORT)}/readyz`, {}, 300_000);
  return server;
}

const lines: string[] = [];
const load: LoadSettings = {
  connections: 50,
  duration: 10,
  key: KEY,
  core: loadCore,
  pets: DEFAULT_BENCH_PETS,
};

/** 500 creates a second for 20 s, then the lag of what was delivered meanwhile. */
async function steadyLoad(pid: number) {
  const before = await lagBuckets();
  received = 0;
  const requests = [{ path: '/v1/pets', method: 'POST' as const, body: NEW_PET }];
  const m = await measure(pid, PORT, requests, { ...load, duration: 20, overallRate: 500 });
  await waitForDeliveries(Math.round(m.rps * 20), 60_000);
  return { sent: m.rps, peakRssMiB: m.peakRssMiB, lag: lagQuantiles(await lagBuckets(), before) };
}

try {
  lines.push(
    '| endpoints | creates/s | p99 ms | CPU µs a create, service / PostgreSQL | deliveries/s while the creates ran | peak RSS MiB |',
    '|---:|---:|---:|---:|---:|---:|',
  );
  for (const endpoints of [0, 10, 100]) {
    const server = await freshService();
    try {
      await register(endpoints);
      const requests = [{ path: '/v1/pets', method: 'POST' as const, body: NEW_PET }];
      await measure(server.pid ?? 0, PORT, requests, { ...load, duration: 2 });
      const postgresBefore = postgresCpuSeconds();
      arrivals = [];
      const m = await measure(server.pid ?? 0, PORT, requests, load);
      // Only while the creates ran: the generator's start, when the API idles, drains freely.
      const during = arrivals.filter((at) => at >= m.loadedFrom && at <= m.loadedUntil);
      const delivered = during.length / ((m.loadedUntil - m.loadedFrom) / 1000);
      const postgres = ((postgresCpuSeconds() - postgresBefore) * 1e6) / (m.rps * load.duration);
      // PGlite runs inside the service: its CPU is the service's.
      const database = args.embedded ? 'in it' : postgres.toFixed(0);
      lines.push(
        `| ${String(endpoints)} | ${m.rps.toFixed(0)} | ${String(m.p99)} | ${m.cpuUsPerRequest.toFixed(0)} / ${database} | ${delivered.toFixed(0)} | ${m.peakRssMiB.toFixed(0)} |`,
      );
    } finally {
      await stop(server);
    }
  }

  const server = await freshService();
  try {
    await register(1);
    // One endpoint: 10 s of creates as fast as 50 connections go, then the time to deliver all.
    received = 0;
    const burst = await measure(
      server.pid ?? 0,
      PORT,
      [{ path: '/v1/pets', method: 'POST', body: NEW_PET }],
      load,
    );
    const created = Math.round(burst.rps * load.duration);
    const duringBurst = received;
    const drainSeconds = await waitForDeliveries(created, 120_000);
    const drainRate = (received - duringBurst) / drainSeconds;
    const burstLag = lagQuantiles(await lagBuckets());
    lines.push(
      '',
      `One endpoint, creates as fast as they go for 10 s: ${String(created)} created (${burst.rps.toFixed(0)}/s); ${String(received)} delivered, the last ${drainSeconds.toFixed(1)} s after the creates ended, ${(received / (load.duration + drainSeconds)).toFixed(0)} deliveries/s end to end (${String(duringBurst)} during the creates, then ${drainRate.toFixed(0)}/s); lag ${burstLag.p50} (p50), ${burstLag.p99} (p99); service RSS ${rssMiB(server.pid ?? 0).toFixed(0)} MiB.`,
    );
    // Then 500 changes a second for 20 s: the lag a steady load sees.
    const steady = await steadyLoad(server.pid ?? 0);
    lines.push(
      '',
      `One endpoint at 500 creates/s for 20 s (${steady.sent.toFixed(0)}/s sent): ${String(received)} delivered; lag of this phase's ${String(steady.lag.count)} deliveries ${steady.lag.p50} (p50), ${steady.lag.p99} (p99).`,
    );
    // The same beside 20 dead endpoints, each holding its 10 attempts open until they time out.
    await register(DEAD_ENDPOINTS, deadHook);
    const beside = await steadyLoad(server.pid ?? 0);
    lines.push(
      '',
      `The same beside ${String(DEAD_ENDPOINTS)} dead endpoints (connections taken, never answered; ${String(held.size)} held at the end): ${String(received)} delivered to the healthy one; its lag ${beside.lag.p50} (p50), ${beside.lag.p99} (p99); service peak RSS ${beside.peakRssMiB.toFixed(0)} MiB.`,
    );
  } finally {
    await stop(server);
  }
} finally {
  receiver.close();
  for (const socket of held) socket.destroy();
  blackHole.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

const store = args.embedded
  ? 'PGlite, a new data folder each phase'
  : `PostgreSQL, ${String(DEFAULT_BENCH_PETS)} pets`;
const setup = `the service on core ${String(serverCore)} (${store}), creates from 50 connections on core ${String(loadCore)}, one receiver in the bench's process answering 200 at once`;
const report = lines.join('\n');
process.stdout.write(`\n${setup}\n\n${report}\n`);
if (args.record && (loadAtStart <= QUIET_LOAD || args.noisy)) {
  process.stdout.write(
    `Recorded: ${recordRun({ kind: 'webhooks', command: 'npm run bench:webhooks', args: argv, startedAt, loadAtStart, setup, report })}\n`,
  );
}
