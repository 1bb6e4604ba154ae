import type { ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { nodeOfLine } from './builds.js';
import { median } from './guard-verdict.js';
import { measure, type LoadSettings, type Measurement } from './measure.js';
import { stop, waitUntilAnswering } from './processes.js';
import { QUIET_LOAD, waitForQuiet } from './quiet.js';
import { startReplication } from './replication.js';
import { recordRun } from './results.js';
import type { RequestSpec } from './scenarios.js';
import { DEFAULT_BENCH_PETS, seedBenchDatabase } from './seed.js';
import { buildService, SERVICE_ROOT, startService } from './service.js';

const argv = process.argv.slice(2);
const { values: args } = parseArgs({
  args: argv,
  options: {
    node: { type: 'string', default: '24' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    record: { type: 'boolean', default: false },
    noisy: { type: 'boolean', default: false },
  },
});

const KEY = 'bench-key';
const PORTS = { primary: 5491, standby: 5492, service: 4131, metrics: 5131 };
const [serverCore, loadCore] = availableParallelism() > 1 ? [0, 1] : [0, 0];
const rounds = Number(args.rounds);
const node = nodeOfLine(args.node);
const load: LoadSettings = {
  connections: 50,
  duration: Number(args.duration),
  key: KEY,
  core: loadCore,
  pets: DEFAULT_BENCH_PETS,
};

type Setup = 'primary' | 'replica' | 'replica + position';
const SETUPS: Setup[] = ['primary', 'replica', 'replica + position'];
const SCENARIOS: [string, string][] = [
  ['REST get', '/v1/pets/{id}'],
  ['REST list 20', '/v1/pets?limit=20'],
];

const startedAt = new Date();
const loadAtStart = await waitForQuiet();
buildService();
const replication = startReplication(PORTS);

/** The database's URL on the standby: the same name, the standby's address. */
const onStandby = (url: string) => {
  const standby = new URL(url);
  standby.port = String(PORTS.standby);
  return standby.toString();
};

async function flushPosition(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const [row] = await sql<{ lsn: string }[]>`
      select (pg_current_wal_flush_lsn() - '0/0'::pg_lsn)::text as lsn`;
    return BigInt(row?.lsn ?? '0')
      .toString(16)
      .padStart(16, '0');
  } finally {
    await sql.end();
  }
}

function startOn(setup: Setup, databaseUrl: string): ChildProcess {
  return startService(
    {
      PORT: String(PORTS.service),
      METRICS_PORT: String(PORTS.metrics),
      DATABASE_URL: databaseUrl,
      API_KEYS: KEY,
      RATE_LIMIT: 'off',
      ...(setup === 'primary' ? {} : { DATABASE_REPLICA_URLS: onStandby(databaseUrl) }),
    },
    serverCore,
    { root: SERVICE_ROOT, node },
  );
}

/** Reads served so far by each target, from the service's own metrics. */
async function servedCounts(): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${PORTS.metrics}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, target = '', count = '0'] of text.matchAll(
    /^petstore_replica_reads_total\{target="([^"]+)"\} (\d+)/gm,
  )) {
    counts[target] = Number(count);
  }
  return counts;
}

/**
 * Clients that each create a pet and read it back at once with the position the create
 * answered: the share of those reads a replica served, and any read that missed its write.
 */
async function writeThenRead(clients: number, seconds: number) {
  const base = `http://127.0.0.1:${PORTS.service}/v1`;
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const deadline = Date.now() + seconds * 1000;
  const tally = { pairs: 0, stale: 0, failed: 0 };
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < deadline) {
        const created = await fetch(`${base}/pets`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'Mixed', categoryId: 3 }),
        });
        const { id } = (await created.json()) as { id: number };
        const position = created.headers.get('petstore-position') ?? '';
        const read = await fetch(`${base}/pets/${String(id)}`, {
          headers: { ...headers, 'petstore-position': position },
        });
        await read.arrayBuffer();
        if (read.status === 404) tally.stale++;
        else if (read.status !== 200 || created.status !== 201) tally.failed++;
        tally.pairs++;
      }
    }),
  );
  return tally;
}

const lines: string[] = [];
try {
  const databaseUrl = await seedBenchDatabase(
    replication.primaryUrl,
    'petstore_replicas',
    DEFAULT_BENCH_PETS,
  );
  const position = await flushPosition(databaseUrl);
  const cpu: Record<string, Record<Setup, Measurement[]>> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [name, path] of SCENARIOS) {
      cpu[name] ??= { primary: [], replica: [], 'replica + position': [] };
      for (const setup of [...SETUPS.slice(round % 3), ...SETUPS.slice(0, round % 3)]) {
        const server = startOn(setup, databaseUrl);
        try {
          await waitUntilAnswering(`http://127.0.0.1:${PORTS.service}/readyz`, {});
          const requests: RequestSpec[] = [
            {
              path,
              method: 'GET',
              ...(setup === 'replica + position' && {
                headers: { 'petstore-position': position },
              }),
            },
          ];
          await measure(server.pid ?? 0, PORTS.service, requests, { ...load, duration: 2 });
          cpu[name][setup].push(await measure(server.pid ?? 0, PORTS.service, requests, load));
        } finally {
          await stop(server);
        }
      }
    }
    process.stdout.write(`bench:replicas: round ${String(round + 1)} of ${String(rounds)}\n`);
  }
  lines.push(
    '| scenario | CPU µs/req primary / replica / replica + position (median) | replica + position ÷ primary per round | p99 ms (median) | non-2xx |',
    '|---|---:|---|---:|---:|',
  );
  for (const [name] of SCENARIOS) {
    const runs = cpu[name];
    if (!runs) continue;
    const med = (setup: Setup, pick: (m: Measurement) => number) => median(runs[setup].map(pick));
    const ratios = runs['replica + position'].map(
      (m, i) => m.cpuUsPerRequest / (runs.primary[i]?.cpuUsPerRequest ?? NaN),
    );
    const failures = SETUPS.reduce(
      (sum, setup) => sum + runs[setup].reduce((n, m) => n + m.non2xx + m.errors, 0),
      0,
    );
    lines.push(
      `| ${name} | ${SETUPS.map((s) => Math.round(med(s, (m) => m.cpuUsPerRequest))).join(' / ')} | ${ratios.map((r) => r.toFixed(2)).join(', ')} | ${SETUPS.map((s) => med(s, (m) => m.p99)).join(' / ')} | ${String(failures)} |`,
    );
  }
  const server = startOn('replica', databaseUrl);
  try {
    await waitUntilAnswering(`http://127.0.0.1:${PORTS.service}/readyz`, {});
    const before = await servedCounts();
    const tally = await writeThenRead(16, 10);
    const after = await servedCounts();
    const replicaReads = Object.entries(after)
      .filter(([target]) => target !== 'primary')
      .reduce((sum, [target, count]) => sum + count - (before[target] ?? 0), 0);
    const primaryReads = (after.primary ?? 0) - (before.primary ?? 0);
    lines.push(
      '',
      `Write then read at once with the write's position, 16 clients for 10 s: ${String(tally.pairs)} pairs, ${String(tally.stale)} stale reads, ${String(tally.failed)} failed; reads served by the replica ${String(replicaReads)}, by the primary ${String(primaryReads)} (${((100 * replicaReads) / Math.max(1, replicaReads + primaryReads)).toFixed(1)}% on the replica).`,
    );
  } finally {
    await stop(server);
  }
} finally {
  replication.stop();
}

const setup = `the service on Node ${args.node} (core ${String(serverCore)}), a private primary and hot standby (streaming, both on this machine), ${String(DEFAULT_BENCH_PETS)} pets, ${String(rounds)} rounds of ${args.duration} s at 50 connections (load on core ${String(loadCore)}), a new process per measurement; "replica + position" sends a position the standby has replayed`;
const report = lines.join('\n');
process.stdout.write(`\n${setup}\n\n${report}\n`);
if (args.record) {
  if (loadAtStart > QUIET_LOAD && !args.noisy) {
    process.stdout.write(`Not recorded: load average ${loadAtStart.toFixed(1)} at the start\n`);
  } else {
    const file = recordRun({
      kind: 'replicas',
      command: 'npm run bench:replicas',
      args: argv,
      startedAt,
      loadAtStart,
      setup,
      report,
    });
    process.stdout.write(`Recorded: ${file}\n`);
  }
}
