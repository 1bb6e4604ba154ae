import { cpSync, existsSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../db/client.js';
import { maintainTables } from '../db/embedded/maintenance.js';
import { DEFAULT_EMBEDDED_SETTINGS } from '../db/embedded/settings.js';
import { events } from '../db/schema.js';
import { PRUNE_BATCH_SIZE, pruneExpiredEvents } from '../server/domain/events/retention.js';
import { vacuumAfterPurgeBatch } from '../server/process/maintenance.js';
import { loadEmbeddedFolder } from './embedded-load.js';

/**
 * The first purge and maintenance round of a loaded folder, statement by statement, in process:
 * `npx tsx bench/embedded-steps.ts <folder> [pets]`. The folder is loaded once (as the
 * embedded phase loads it) and copied for every run, so runs start from the same data. A probe
 * asks `select 1` every 10 ms, as a request would, and reports how long it waited: PGlite
 * runs each statement synchronously on the event loop, so a request waits for the statement
 * running when it arrives and for anything else that never yields the event loop.
 */
const RETENTION_SECONDS = 7 * 24 * 3600;
const [folder = '/tmp/petstore-steps', petsArg = '400000'] = process.argv.slice(2);

interface Timing {
  statement: string;
  ms: number;
  /**
   * This process's CPU time over the statement. Far below `ms`, the statement waited for a
   * core: on the shared machine a purge batch of 74 ms had used 5 ms of CPU.
   */
  cpuMs: number;
}

/** Times every statement of the PGlite client (outside transactions), by its first words. */
function timeStatements(client: PGlite): Timing[] {
  const timings: Timing[] = [];
  const query = client.query.bind(client);
  client.query = (async (text: string, ...rest: unknown[]) => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    try {
      return await (query as (text: string, ...rest: unknown[]) => Promise<unknown>)(text, ...rest);
    } finally {
      const words = text.replace(/\s+/g, ' ').trim().split(' ').slice(0, 3).join(' ');
      const used = process.cpuUsage(cpu);
      const cpuMs = (used.user + used.system) / 1000;
      timings.push({ statement: words, ms: performance.now() - started, cpuMs });
    }
  }) as PGlite['query'];
  return timings;
}

function summary(timings: Timing[]) {
  const groups = new Map<string, Timing[]>();
  for (const timing of timings) {
    const runs = groups.get(timing.statement) ?? [];
    runs.push(timing);
    groups.set(timing.statement, runs);
  }
  return [...groups].map(([statement, runs]) => {
    const slowest = runs.sort((a, b) => a.ms - b.ms).at(-1);
    const ms = runs.map((run) => run.ms);
    return {
      statement,
      count: ms.length,
      p50: Math.round(ms[Math.floor(ms.length / 2)] ?? 0),
      max: Math.round(slowest?.ms ?? 0),
      maxCpu: Math.round(slowest?.cpuMs ?? 0),
      totalMs: Math.round(ms.reduce((sum, value) => sum + value, 0)),
    };
  });
}

/** Runs `select 1` every 10 ms; each wait counts from when the probe was due. */
function probe(run: () => Promise<unknown>) {
  const waits: number[] = [];
  const stopped = new AbortController();
  const done = (async () => {
    while (!stopped.signal.aborted) {
      const due = performance.now() + 10;
      await sleep(10);
      await run();
      waits.push(performance.now() - due);
    }
  })();
  return async () => {
    stopped.abort();
    await done;
    waits.sort((a, b) => a - b);
    return {
      probes: waits.length,
      p99: Math.round(waits[Math.floor(waits.length * 0.99)] ?? 0),
      worst: Math.round(waits.at(-1) ?? 0),
    };
  };
}

if (!existsSync(folder)) {
  const seconds = await loadEmbeddedFolder(folder, Number(petsArg), DEFAULT_EMBEDDED_SETTINGS);
  console.log(`loaded ${petsArg} pets into ${folder} in ${seconds.toFixed(1)} s`);
}
const copy = `${folder}-run`;
rmSync(copy, { recursive: true, force: true });
cpSync(folder, copy, { recursive: true });
const handle = await openDatabase({ kind: 'pglite', dataDir: copy });
const { db } = handle;
const timings = timeStatements((db as unknown as { $client: PGlite }).$client);

const atStart = await maintainTables(db, 'start');
console.log('at start (before the first request):', JSON.stringify(atStart));
timings.length = 0;

const stopProbe = probe(() => db.execute(sql`select 1`));
const started = performance.now();
// As the service runs it (server/process/app.ts).
const purged = await pruneExpiredEvents(
  db,
  RETENTION_SECONDS,
  PRUNE_BATCH_SIZE,
  vacuumAfterPurgeBatch(handle, events),
);
const purgeMs = performance.now() - started;
const round = await maintainTables(db, 'round');
const roundMs = performance.now() - started - purgeMs;
const waits = await stopProbe();
console.log(`purge: ${JSON.stringify(purged)} in ${Math.round(purgeMs)} ms`);
console.log(`maintenance round in ${Math.round(roundMs)} ms:`, JSON.stringify(round));
console.table(summary(timings.filter((timing) => timing.statement !== 'select 1')));
console.log('probe (select 1 every 10 ms):', JSON.stringify(waits));
await handle.close();
rmSync(copy, { recursive: true, force: true });
