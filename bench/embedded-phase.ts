import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNodeFlags } from '../scripts/start-flags.js';
import { DEFAULT_EMBEDDED_SETTINGS, type EmbeddedSettings } from '../db/embedded/settings.js';
import { folderMiB, loadEmbeddedFolder } from './embedded-load.js';
import { pinned, startProcess, stop, waitUntilAnswering } from './processes.js';

const KEY = 'bench-key';
const auth = { authorization: `Bearer ${KEY}` };
const REQUESTS = 200;

interface Op {
  name: string;
  request: (origin: string) => Promise<Response>;
}

const ops = (pets: number): Op[] => [
  {
    name: 'listPets first page',
    request: (o) => fetch(`${o}/v1/pets?limit=20`, { headers: auth }),
  },
  {
    name: 'listPets ?status=pending',
    request: (o) => fetch(`${o}/v1/pets?limit=20&status=pending`, { headers: auth }),
  },
  {
    name: 'getPet',
    request: (o) =>
      fetch(`${o}/v1/pets/${1 + Math.floor(Math.random() * pets)}`, { headers: auth }),
  },
  {
    name: 'createPet',
    request: (o) =>
      fetch(`${o}/v1/pets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Bench', categoryId: 1 }),
      }),
  },
  {
    name: 'listOrders ?petId',
    request: (o) => fetch(`${o}/v1/store/orders?petId=150`, { headers: auth }),
  },
];

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

async function timed(op: Op, origin: string): Promise<number> {
  const started = performance.now();
  const response = await op.request(origin);
  await response.arrayBuffer();
  if (response.status >= 300) throw new Error(`${op.name}: ${response.status}`);
  return performance.now() - started;
}

function memoryMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) / 1024);
}

async function startService(
  dataDir: string,
  port: number,
  settings: EmbeddedSettings,
  core: number,
) {
  const started = performance.now();
  const child = startProcess(
    ...pinned(core, process.execPath, [...startNodeFlags(), 'dist/server/main.js']),
    {
      PORT: String(port),
      PGLITE_DIR: dataDir,
      API_KEYS: KEY,
      LOG_LEVEL: 'warn',
      RATE_LIMIT: 'off',
      PGLITE_SHARED_BUFFERS: settings.sharedBuffers,
      PGLITE_MAX_WAL_SIZE: settings.maxWalSize,
      PGLITE_MIN_WAL_SIZE: settings.minWalSize,
    },
  );
  await waitUntilAnswering(`http://127.0.0.1:${port}/readyz`, {}, 300_000);
  return { child, startSeconds: (performance.now() - started) / 1000 };
}

export interface EmbeddedResult {
  pets: number;
  loadSeconds: number;
  coldStartSeconds: number;
  warmStartSeconds: number;
  firstStartPeakMiB: number;
  steadyRssMiB: number;
  peakRssMiB: number;
  ops: { name: string; p50: number; p99: number }[];
  worstDuringPurgeMs: number;
  folderMiB: number;
  walMiB: number;
}

/**
 * One size: load a folder with the service stopped, start the service on it (cold), time each
 * operation alone, probe getPet every 20 ms across the first purge and maintenance round (a
 * minute after start), restart (warm), and measure the folder.
 */
export async function runEmbeddedSize(
  pets: number,
  port: number,
  core: number,
  settings: EmbeddedSettings = DEFAULT_EMBEDDED_SETTINGS,
): Promise<EmbeddedResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'petstore-bench-pglite-'));
  const children = new Set<ChildProcess>();
  try {
    const loadSeconds = await loadEmbeddedFolder(dataDir, pets, settings);
    const origin = `http://127.0.0.1:${port}`;
    const cold = await startService(dataDir, port, settings, core);
    children.add(cold.child);
    const pid = cold.child.pid ?? 0;
    const firstStartPeakMiB = memoryMiB(pid, 'VmHWM');
    const results = [];
    for (const op of ops(pets)) {
      for (let i = 0; i < 20; i++) await timed(op, origin);
      const samples: number[] = [];
      for (let i = 0; i < REQUESTS; i++) samples.push(await timed(op, origin));
      samples.sort((a, b) => a - b);
      results.push({ name: op.name, p50: percentile(samples, 50), p99: percentile(samples, 99) });
    }
    const steadyRssMiB = memoryMiB(pid, 'VmRSS');
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
    const warm = await startService(dataDir, port, settings, core);
    children.add(warm.child);
    await stop(warm.child);
    return {
      pets,
      loadSeconds,
      coldStartSeconds: cold.startSeconds,
      warmStartSeconds: warm.startSeconds,
      firstStartPeakMiB,
      steadyRssMiB,
      peakRssMiB,
      ops: results,
      worstDuringPurgeMs: worst,
      folderMiB: folderMiB(dataDir),
      walMiB: folderMiB(join(dataDir, 'pg_wal')),
    };
  } finally {
    for (const child of children) await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The first start of all, on an empty folder: initdb, migrations, the first key. */
export async function firstStartOnEmptyFolder(
  port: number,
  core: number,
  settings: EmbeddedSettings = DEFAULT_EMBEDDED_SETTINGS,
): Promise<{ seconds: number; peakMiB: number; steadyMiB: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'petstore-bench-pglite-'));
  try {
    const { child, startSeconds } = await startService(dataDir, port, settings, core);
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
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
