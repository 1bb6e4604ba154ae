import { execFileSync } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../db/client.js';
import type { EmbeddedSettings } from '../db/embedded/settings.js';

const CHUNK = 100_000;

/**
 * Fills a PGlite folder as an import or a restore would, with the service stopped: `pets`
 * pets (1% pending), one order per hundred pets, and as many events as pets half of which are
 * past the 7-day retention, so the first purge has work. Returns the seconds it took.
 */
export async function loadEmbeddedFolder(
  dataDir: string,
  pets: number,
  settings: EmbeddedSettings,
): Promise<number> {
  const started = performance.now();
  const handle = await openDatabase({ kind: 'pglite', dataDir, settings });
  try {
    await handle.migrate();
    const { db } = handle;
    for (let from = 1; from <= pets; from += CHUNK) {
      const to = Math.min(pets, from + CHUNK - 1);
      await db.execute(sql`
        insert into pets (name, category_id, status)
        select 'Pet ' || g, 1 + g % 500,
          (case when g % 100 = 0 then 'pending' else 'available' end)::pet_status
        from generate_series(${from}::int, ${to}::int) g`);
      await db.execute(sql`
        insert into events (type, occurred_at, data)
        select 'pet.created', now() - make_interval(days => case when g % 2 = 0 then 8 else 1 end),
          jsonb_build_object('id', g, 'name', 'Pet ' || g)
        from generate_series(${from}::int, ${to}::int) g order by g % 2 = 1, g`);
    }
    await db.execute(sql`
      insert into orders (pet_id, status)
      select id, 'delivered' from pets where id % 100 = 50`);
  } finally {
    await handle.close();
  }
  return (performance.now() - started) / 1000;
}

/** Bytes under a folder, as du counts them. */
export function folderMiB(path: string): number {
  return Number(execFileSync('du', ['-sk', path], { encoding: 'utf8' }).split('\t')[0]) / 1024;
}
