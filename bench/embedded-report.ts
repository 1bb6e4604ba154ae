import { writeFileSync } from 'node:fs';
import type { EmbeddedSettings } from '../db/embedded/settings.js';
import { firstStartOnEmptyFolder, runEmbeddedSize, type EmbeddedResult } from './embedded-phase.js';

/** What PGlite runs with when nothing is set: PostgreSQL's defaults. */
export const POSTGRES_DEFAULTS: EmbeddedSettings = {
  sharedBuffers: '128MB',
  maxWalSize: '1GB',
  minWalSize: '80MB',
};

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 0);

/** The embedded phase at each size, printed as markdown and written to bench/results/. */
export async function runEmbeddedPhase(
  sizes: number[],
  settings: EmbeddedSettings,
  where: { port: number; core: number },
): Promise<void> {
  const first = await firstStartOnEmptyFolder(where.port, where.core, settings);
  process.stdout.write(`${JSON.stringify({ firstStart: first })}\n`);
  const results: EmbeddedResult[] = [];
  for (const pets of sizes)
    results.push(await runEmbeddedSize(pets, where.port, where.core, settings));
  const lines = [
    `Settings: shared_buffers ${settings.sharedBuffers}, max_wal_size ${settings.maxWalSize}, min_wal_size ${settings.minWalSize}`,
    `First start on an empty folder: ${first.seconds.toFixed(1)} s, peak RSS ${first.peakMiB} MiB, then ${first.steadyMiB} MiB`,
    '',
    `| | ${results.map((r) => `${r.pets.toLocaleString('en')} pets`).join(' | ')} |`,
    `|---|${results.map(() => '---').join('|')}|`,
    ...(results[0]?.ops ?? []).map(
      (op, i) =>
        `| ${op.name} p50 / p99 (ms) | ${results
          .map((r) => `${ms(r.ops[i]?.p50 ?? NaN)} / ${ms(r.ops[i]?.p99 ?? NaN)}`)
          .join(' | ')} |`,
    ),
    `| worst getPet across the first purge and maintenance (ms) | ${results.map((r) => ms(r.worstDuringPurgeMs)).join(' | ')} |`,
    `| load, service stopped (s) | ${results.map((r) => r.loadSeconds.toFixed(1)).join(' | ')} |`,
    `| cold start / warm start (s) | ${results.map((r) => `${r.coldStartSeconds.toFixed(1)} / ${r.warmStartSeconds.toFixed(1)}`).join(' | ')} |`,
    `| RSS: start peak / steady / peak (MiB) | ${results.map((r) => `${r.firstStartPeakMiB} / ${r.steadyRssMiB} / ${r.peakRssMiB}`).join(' | ')} |`,
    `| folder / of which WAL (MiB) | ${results.map((r) => `${r.folderMiB.toFixed(0)} / ${r.walMiB.toFixed(0)}`).join(' | ')} |`,
  ];
  const report = lines.join('\n');
  process.stdout.write(`${report}\n`);
  writeFileSync(
    `bench/results/embedded-${sizes.join('-')}-${settings.sharedBuffers}.md`,
    `${report}\n`,
  );
}
