import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { folderMiB, loadEmbeddedFolder, refillEvents } from './embedded-load.js';
import { settingsEnv, type EmbeddedSettings } from './embedded-settings.js';
import { stop, waitUntilAnswering } from './processes.js';
import { startService } from './service.js';
import {
  BENCH_KEY,
  compareOperations,
  ops,
  timed,
  timeOperations,
  type OpTiming,
} from './embedded-ops.js';

function memoryMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) / 1024);
}

/** The built service on the folder `dataDir`, once it is ready, and how long that took. */
async function startEmbedded(
  dataDir: string,
  port: number,
  settings: EmbeddedSettings,
  core: number,
) {
  const started = performance.now();
  const child = startService(
    {
      PORT: String(port),
      PGLITE_DIR: dataDir,
      API_KEYS: BENCH_KEY,
      LOG_LEVEL: 'warn',
      METRICS_PORT: String(port + 1000),
      RATE_LIMIT: 'off',
      ...settingsEnv(settings),
    },
    core,
  );
  await waitUntilAnswering(`http://127.0.0.1:${port}/readyz`, {}, 300_000);
  return { child, startSeconds: (performance.now() - started) / 1000 };
}

/** The service's first start of all, on an empty folder: the schema it then holds, migrated. */
async function firstStart(dataDir: string, port: number, settings: EmbeddedSettings, core: number) {
  const { child, startSeconds } = await startEmbedded(dataDir, port, settings, core);
  const pid = child.pid ?? 0;
  try {
    return {
      seconds: startSeconds,
      peakMiB: memoryMiB(pid, 'VmHWM'),
      steadyMiB: memoryMiB(pid, 'VmRSS'),
    };
  } finally {
    await stop(child);
  }
}

export interface EmbeddedResult {
  pets: number;
  /** The first start, on the empty folder, before the load. */
  firstStart: { seconds: number; peakMiB: number; steadyMiB: number };
  loadSeconds: number;
  coldStartSeconds: number;
  warmStartSeconds: number;
  coldStartPeakMiB: number;
  steadyRssMiB: number;
  peakRssMiB: number;
  ops: OpTiming[];
  /** The one-minute load average when the operations were timed: what else the cores ran. */
  loadAverage: number;
  worstDuringPurgeMs: number;
  /** The folder as the load left it, after the service's purge, and after a refill. */
  folderMiB: { loaded: number; purged: number; refilled: number };
  walMiB: number;
  /** Resident memory after the timed operations, by part. */
  memory: MemoryParts;
}

/** Where a process's resident memory goes, in MiB. */
export interface MemoryParts {
  rss: number;
  /** V8's heap, as allocated (its used part in `heapUsed`). */
  heapTotal: number;
  heapUsed: number;
  /** Memory V8 tracks outside its heap: buffers, and PGlite's WebAssembly memory. */
  external: number;
  /** The rest: code, the runtime's own allocations. */
  other: number;
}

/** The service's own figures (its metrics listener), beside its resident set. */
async function memoryParts(metricsPort: number, rss: number): Promise<MemoryParts> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const mib = (name: string) =>
    Math.round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20);
  const heapTotal = mib('nodejs_heap_size_total_bytes');
  const external = mib('nodejs_external_memory_bytes');
  return {
    rss,
    heapTotal,
    heapUsed: mib('nodejs_heap_size_used_bytes'),
    external,
    other: rss - heapTotal - external,
  };
}

/**
 * One size: the service's first start on an empty folder (which migrates it), a load of the
 * folder with the service stopped, then the service on it (cold): each operation timed alone,
 * getPet probed every 20 ms across the first purge and maintenance round (a minute after
 * start), a restart (warm), and the folder measured as loaded, after the purge, and after as
 * many events as the purge removed were added again with the service stopped. The folder
 * stays, for the comparison of sizes that follows (the caller removes it).
 */
export async function runEmbeddedSize(
  dataDir: string,
  pets: number,
  port: number,
  core: number,
  settings: EmbeddedSettings,
): Promise<EmbeddedResult> {
  const children = new Set<ChildProcess>();
  try {
    const first = await firstStart(dataDir, port, settings, core);
    const loadSeconds = await loadEmbeddedFolder(dataDir, pets, settings);
    const loadedMiB = folderMiB(dataDir);
    const origin = `http://127.0.0.1:${port}`;
    const cold = await startEmbedded(dataDir, port, settings, core);
    children.add(cold.child);
    const pid = cold.child.pid ?? 0;
    const coldStartPeakMiB = memoryMiB(pid, 'VmHWM');
    const loadAverage = loadavg()[0] ?? NaN;
    const results = await timeOperations(pets, origin);
    const steadyRssMiB = memoryMiB(pid, 'VmRSS');
    const memory = await memoryParts(port + 1000, steadyRssMiB);
    // The purges and the first maintenance round run a minute after start.
    let worst = 0;
    const probeUntil = cold.startSeconds * 1000 + 80_000;
    const since = performance.now() - cold.startSeconds * 1000;
    const getPet = ops(pets)[2];
    while (getPet && performance.now() - since < probeUntil) {
      worst = Math.max(worst, await timed(getPet, origin));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const peakRssMiB = memoryMiB(pid, 'VmHWM');
    await stop(cold.child);
    const warm = await startEmbedded(dataDir, port, settings, core);
    children.add(warm.child);
    await stop(warm.child);
    const purgedMiB = folderMiB(dataDir);
    // Half the loaded events are past the retention: the purge removed that many.
    await refillEvents(dataDir, Math.floor(pets / 2), settings);
    return {
      pets,
      firstStart: first,
      loadSeconds,
      coldStartSeconds: cold.startSeconds,
      warmStartSeconds: warm.startSeconds,
      coldStartPeakMiB,
      steadyRssMiB,
      peakRssMiB,
      ops: results,
      loadAverage,
      worstDuringPurgeMs: worst,
      folderMiB: { loaded: loadedMiB, purged: purgedMiB, refilled: folderMiB(dataDir) },
      walMiB: folderMiB(join(dataDir, 'pg_wal')),
      memory,
    };
  } finally {
    for (const child of children) await stop(child);
  }
}

export interface SizeComparison {
  /** The one-minute load average as the comparison began. */
  loadAverage: number;
  /** Per folder, in the order given: each operation's timings, then the service's RSS after. */
  sizes: { pets: number; ops: OpTiming[]; rssMiB: number }[];
}

/**
 * Every folder's service started at once (warm, all on `core`), and each operation timed on
 * them in turn, a request to one then the other: the ratio between sizes then compares two
 * services under the same load, which timing each size in its own run did not.
 */
export async function compareSizes(
  folders: readonly { dataDir: string; pets: number }[],
  port: number,
  core: number,
  settings: EmbeddedSettings,
): Promise<SizeComparison> {
  const children: ChildProcess[] = [];
  try {
    const services = [];
    for (const [index, folder] of folders.entries()) {
      const { child } = await startEmbedded(folder.dataDir, port + index, settings, core);
      children.push(child);
      services.push({ pets: folder.pets, origin: `http://127.0.0.1:${port + index}` });
    }
    const loadAverage = loadavg()[0] ?? NaN;
    const timings = await compareOperations(services);
    return {
      loadAverage,
      sizes: folders.map((folder, index) => ({
        pets: folder.pets,
        ops: timings[index] ?? [],
        rssMiB: memoryMiB(children[index]?.pid ?? 0, 'VmRSS'),
      })),
    };
  } finally {
    for (const child of children) await stop(child);
  }
}
