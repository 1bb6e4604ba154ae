import { execFileSync } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { openDatabase, type DatabaseOptions } from '../db/client.js';
import { executeRows, type Database } from '../db/database.js';
import type { EmbeddedSettings } from '../db/embedded/settings.js';
import { dropDatabase, freshDatabase, seededPetName } from './seed.js';

const CHUNK = 100_000;
const SIZE_DATABASE = 'petstore_bench_size';

/**
 * Fills a PGlite folder as an import or a restore would, with the service stopped: `pets`
 * pets with real names (1% pending), one order per hundred pets, and as many events as pets half of which are
 * past the 7-day retention, so the first purge has work. Returns the seconds it took.
 */
export async function loadEmbeddedFolder(
  dataDir: string,
  pets: number,
  settings: EmbeddedSettings,
): Promise<number> {
  const started = performance.now();
  await withDatabase({ kind: 'pglite', dataDir, settings }, (db) => fillStore(db, pets));
  return (performance.now() - started) / 1000;
}

/**
 * Adds `count` events within the retention, with the service stopped: a refill of what a purge
 * removed, to show whether the space the purge freed is used again.
 */
export async function refillEvents(
  dataDir: string,
  count: number,
  settings: EmbeddedSettings,
): Promise<void> {
  await withDatabase({ kind: 'pglite', dataDir, settings }, async (db) => {
    for (let from = 1; from <= count; from += CHUNK) {
      await db.execute(sql`
        insert into events (type, data)
        select 'pet.updated', jsonb_build_object('id', g, 'name', 'Pet ' || g)
        from generate_series(${from}::int, ${Math.min(count, from + CHUNK - 1)}::int) g`);
    }
  });
}

/**
 * The size on a PostgreSQL server of the data a folder of `pets` is loaded with, in a scratch
 * database: its files, as `pg_database_size` counts them (the server's WAL is shared, so not).
 */
export async function postgresDatabaseMiB(serverUrl: string, pets: number): Promise<number> {
  const url = await freshDatabase(serverUrl, SIZE_DATABASE);
  try {
    const [row] = await withDatabase({ kind: 'postgres', url, poolMax: 1 }, async (db) => {
      await fillStore(db, pets);
      return executeRows<{ bytes: string }>(
        db,
        sql`select pg_database_size(current_database())::text as bytes`,
      );
    });
    return Number(row?.bytes) / 2 ** 20;
  } finally {
    await dropDatabase(serverUrl, SIZE_DATABASE);
  }
}

async function withDatabase<T>(
  options: DatabaseOptions,
  work: (db: Database) => Promise<T>,
): Promise<T> {
  const handle = await openDatabase(options);
  try {
    await handle.migrate();
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

async function fillStore(db: Database, pets: number): Promise<void> {
  for (let from = 1; from <= pets; from += CHUNK) {
    const to = Math.min(pets, from + CHUNK - 1);
    await db.execute(sql`
      insert into pets (name, category_id, status)
      select ${sql.raw(seededPetName('g'))}, 1 + g % 500,
        (case when g % 100 = 0 then 'pending' else 'available' end)::pet_status
      from generate_series(${from}::int, ${to}::int) g`);
    await db.execute(sql`
      insert into events (type, occurred_at, data)
      select 'pet.created', now() - make_interval(days => case when g % 2 = 0 then 8 else 1 end),
        jsonb_build_object('id', g, 'name', ${sql.raw(seededPetName('g'))})
      from generate_series(${from}::int, ${to}::int) g order by g % 2 = 1, g`);
  }
  await db.execute(sql`
    insert into orders (pet_id, status)
    select id, 'delivered' from pets where id % 100 = 50`);
}

/** Bytes under a folder, as du counts them. */
export function folderMiB(path: string): number {
  return Number(execFileSync('du', ['-sk', path], { encoding: 'utf8' }).split('\t')[0]) / 1024;
}
