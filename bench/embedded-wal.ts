import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { folderMiB, loadEmbeddedFolder } from './embedded-load.js';
import { BENCH_KEY } from './embedded-ops.js';
import { DEFAULT_EMBEDDED_SETTINGS, settingsEnv } from './embedded-settings.js';
import { median } from './guard-verdict.js';
import { stop, waitUntilAnswering } from './processes.js';
import { QUIET_LOAD, waitForQuiet } from './quiet.js';
import { recordRun } from './results.js';
import { buildService, startService } from './service.js';

const argv = process.argv.slice(2);
const { values: args } = parseArgs({
  args: argv,
  options: {
    pets: { type: 'string', default: '300000' },
    seconds: { type: 'string', default: '60' },
    connections: { type: 'string', default: '2' },
    record: { type: 'boolean', default: false },
    noisy: { type: 'boolean', default: false },
  },
});
const pets = Number(args.pets);
const seconds = Number(args.seconds);
const connections = Number(args.connections);
const PORT = 4141;
const origin = `http://127.0.0.1:${String(PORT)}`;
const headers = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' };
const settings = DEFAULT_EMBEDDED_SETTINGS;
const [serverCore] = availableParallelism() > 1 ? [0, 1] : [0, 0];

const startedAt = new Date();
const loadAtStart = await waitForQuiet();
buildService();
const dataDir = mkdtempSync(join(tmpdir(), 'petstore-bench-wal-'));

function serve() {
  return startService(
    {
      PORT: String(PORT),
      PGLITE_DIR: dataDir,
      API_KEYS: BENCH_KEY,
      LOG_LEVEL: 'warn',
      RATE_LIMIT: 'off',
      ...settingsEnv(settings),
    },
    serverCore,
  );
}

/** PATCHes renaming random pets, from `connections` clients, until the deadline. */
async function patches(deadline: number) {
  const statuses = new Map<number, number>();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let i = 0; Date.now() < deadline; i++) {
        const id = 1 + Math.floor(Math.random() * pets);
        const response = await fetch(`${origin}/v1/pets/${String(id)}`, {
          method: 'PATCH',
          headers,
          body: JSON.stringify({ name: `Renamed ${String(i)}` }),
        });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

let report = '';
try {
  // The first start migrates the empty folder; the load fills it with the service stopped.
  const first = serve();
  await waitUntilAnswering(`${origin}/readyz`, {}, 300_000);
  await stop(first);
  await loadEmbeddedFolder(dataDir, pets, settings);
  const server = serve();
  try {
    await waitUntilAnswering(`${origin}/readyz`, {}, 300_000);
    const wal: number[] = [];
    const sampler = setInterval(() => wal.push(folderMiB(join(dataDir, 'pg_wal'))), 250);
    const statuses = await patches(Date.now() + seconds * 1000);
    clearInterval(sampler);
    const sent = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    report = [
      '| PATCHes sent | statuses | pg_wal MiB: max | median | at the end | samples above 128 MiB |',
      '|---:|---|---:|---:|---:|---:|',
      `| ${String(sent)} | ${[...statuses].map(([status, count]) => `${String(status)}: ${String(count)}`).join(', ')} | ${Math.max(...wal).toFixed(0)} | ${median(wal).toFixed(0)} | ${(wal.at(-1) ?? 0).toFixed(0)} | ${String(wal.filter((mib) => mib > 128).length)} of ${String(wal.length)} |`,
    ].join('\n');
  } finally {
    await stop(server);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const setup = `the embedded database with ${pets.toLocaleString('en')} pets (max_wal_size ${settings.maxWalSize}, min_wal_size ${settings.minWalSize}), ${String(seconds)} s of PATCHes renaming random pets from ${String(connections)} connections, pg_wal sampled every 250 ms; the service on core ${String(serverCore)}`;
process.stdout.write(`\n${setup}\n\n${report}\n`);
if (args.record) {
  if (loadAtStart > QUIET_LOAD && !args.noisy) {
    process.stdout.write(`Not recorded: load average ${loadAtStart.toFixed(1)} at the start\n`);
  } else {
    const file = recordRun({
      kind: 'embedded-wal',
      command: 'npm run bench:wal',
      args: argv,
      startedAt,
      loadAtStart,
      setup,
      report,
    });
    process.stdout.write(`Recorded: ${file}\n`);
  }
}
