import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresDatabaseMiB } from './embedded-load.js';
import {
  compareSizes,
  runEmbeddedSize,
  type EmbeddedResult,
  type SizeComparison,
} from './embedded-phase.js';
import type { EmbeddedSettings } from './embedded-settings.js';

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 0);

/** The embedded phase at each size, as markdown. */
export async function runEmbeddedPhase(
  sizes: number[],
  settings: EmbeddedSettings,
  where: { port: number; core: number; postgresUrl: string },
): Promise<string> {
  const folders = sizes.map((pets) => ({
    pets,
    dataDir: mkdtempSync(join(tmpdir(), 'petstore-bench-pglite-')),
  }));
  const results: EmbeddedResult[] = [];
  let compared: SizeComparison;
  try {
    for (const { pets, dataDir } of folders)
      results.push(await runEmbeddedSize(dataDir, pets, where.port, where.core, settings));
    compared = await compareSizes(folders, where.port, where.core, settings);
  } finally {
    for (const { dataDir } of folders) rmSync(dataDir, { recursive: true, force: true });
  }
  const postgresMiB: number[] = [];
  for (const pets of sizes) postgresMiB.push(await postgresDatabaseMiB(where.postgresUrl, pets));
  const lines = [
    `Settings: shared_buffers ${settings.sharedBuffers}, max_wal_size ${settings.maxWalSize}, min_wal_size ${settings.minWalSize}`,
    '',
    `| | ${results.map((r) => `${r.pets.toLocaleString('en')} pets`).join(' | ')} |`,
    `|---|${results.map(() => '---').join('|')}|`,
    ...(results[0]?.ops ?? []).map(
      (op, i) =>
        `| ${op.name} p50 / p99 (ms) | ${results
          .map((r) => `${ms(r.ops[i]?.p50 ?? NaN)} / ${ms(r.ops[i]?.p99 ?? NaN)}`)
          .join(' | ')} |`,
    ),
    `| load average as the operations were timed | ${results.map((r) => r.loadAverage.toFixed(1)).join(' | ')} |`,
    ...comparisonRows(compared),
    `| worst getPet across the first purge and maintenance (ms) | ${results.map((r) => ms(r.worstDuringPurgeMs)).join(' | ')} |`,
    `| first start on the empty folder: time (s), peak / after (MiB) | ${results.map(({ firstStart: f }) => `${f.seconds.toFixed(1)}, ${f.peakMiB} / ${f.steadyMiB}`).join(' | ')} |`,
    `| load, service stopped (s) | ${results.map((r) => r.loadSeconds.toFixed(1)).join(' | ')} |`,
    `| cold start / warm start (s) | ${results.map((r) => `${r.coldStartSeconds.toFixed(1)} / ${r.warmStartSeconds.toFixed(1)}`).join(' | ')} |`,
    `| RSS: start peak / steady / peak (MiB) | ${results.map((r) => `${r.coldStartPeakMiB} / ${r.steadyRssMiB} / ${r.peakRssMiB}`).join(' | ')} |`,
    `| steady RSS: V8 heap (used) / external (buffers, WebAssembly) / other (MiB) | ${results.map(({ memory: m }) => `${m.heapTotal} (${m.heapUsed}) / ${m.external} / ${m.other}`).join(' | ')} |`,
    `| folder as loaded / after the purge / after a refill of as many events (MiB) | ${results.map(({ folderMiB: f }) => `${f.loaded.toFixed(0)} / ${f.purged.toFixed(0)} / ${f.refilled.toFixed(0)}`).join(' | ')} |`,
    `| of which WAL, after the refill (MiB) | ${results.map((r) => r.walMiB.toFixed(0)).join(' | ')} |`,
    `| PostgreSQL database of the same data as loaded (MiB); folder as loaded over it | ${results.map((r, i) => `${(postgresMiB[i] ?? NaN).toFixed(0)}; ${(r.folderMiB.loaded / (postgresMiB[i] ?? NaN)).toFixed(2)}×`).join(' | ')} |`,
  ];
  return lines.join('\n');
}

/**
 * The sizes side by side, interleaved, with each one's p50 over the first size's: the figure
 * the 2× target is about.
 */
function comparisonRows(compared: SizeComparison): string[] {
  const [first] = compared.sizes;
  return [
    `| **interleaved** (load average ${compared.loadAverage.toFixed(1)}) | ${compared.sizes.map(() => '').join(' | ')} |`,
    ...(first?.ops ?? []).map(
      (op, i) =>
        `| ${op.name} p50 / p99 (ms), p50 ratio | ${compared.sizes
          .map((size) => {
            const timing = size.ops[i];
            const ratio = (timing?.p50 ?? NaN) / op.p50;
            return `${ms(timing?.p50 ?? NaN)} / ${ms(timing?.p99 ?? NaN)}, ${ratio.toFixed(1)}×`;
          })
          .join(' | ')} |`,
    ),
    `| RSS after the interleaved operations (MiB) | ${compared.sizes.map((size) => size.rssMiB).join(' | ')} |`,
  ];
}
