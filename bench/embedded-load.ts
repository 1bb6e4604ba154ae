import { execFileSync } from 'node:child_process';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import postgres from 'postgres';
import { settingsStartParams, type EmbeddedSettings } from './embedded-settings.js';
import { dropDatabase, freshDatabase, seededPetName } from './seed.js';
import { migrateDatabase } from './service.js';

const CHUNK = 100_000;
const SIZE_DATABASE = 'petstore_bench_size';

/** Runs one statement with positional parameters, on either database. */
type Execute = (text: string, params?: unknown[]) => Promise<unknown>;

/**
 * Opens a folder the service has migrated and stopped, as an operator's import would: with the
 * bench's own PGlite (the version the service pins, bench/tests/manifest.test.ts), pg_trgm for
 * the name index, and the settings the service runs with.
 */
async function withFolder(
  dataDir: string,
  settings: EmbeddedSettings,
  work: (execute: Execute) => Promise<void>,
): Promise<void> {
  const client = await PGlite.create(dataDir, {
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, ...settingsStartParams(settings)],
  });
  try {
    await work((text, params) => client.query(text, params));
  } finally {
    await client.close();
  }
}

/**
 * Fills a migrated PGlite folder with the service stopped, as an import would: `pets` pets with
 * real names (1% pending), one order per hundred pets, and as many events as pets half of which
 * are past the 7-day retention, so the first purge has work. Returns the seconds it took.
 */
export async function loadEmbeddedFolder(
  dataDir: string,
  pets: number,
  settings: EmbeddedSettings,
): Promise<number> {
  const started = performance.now();
  await withFolder(dataDir, settings, (execute) => fillStore(execute, pets));
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
  await withFolder(dataDir, settings, async (execute) => {
    for (let from = 1; from <= count; from += CHUNK) {
      await execute(
        `insert into events (type, data)
        select 'pet.updated', jsonb_build_object('id', g, 'name', ${seededPetName('g')})
        from generate_series($1::int, $2::int) g`,
        [from, Math.min(count, from + CHUNK - 1)],
      );
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
    migrateDatabase(url);
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      await fillStore(
        (text, params) => sql.unsafe(text, params as postgres.ParameterOrJSON<never>[]),
        pets,
      );
      const [row] = await sql`select pg_database_size(current_database())::text as bytes`;
      return Number(row?.bytes) / 2 ** 20;
    } finally {
      await sql.end();
    }
  } finally {
    await dropDatabase(serverUrl, SIZE_DATABASE);
  }
}

async function fillStore(execute: Execute, pets: number): Promise<void> {
  for (let from = 1; from <= pets; from += CHUNK) {
    const range = [from, Math.min(pets, from + CHUNK - 1)];
    await execute(
      `insert into pets (name, category_id, status)
      select ${seededPetName('g')}, 1 + g % 500,
        (case when g % 100 = 0 then 'pending' else 'available' end)::pet_status
      from generate_series($1::int, $2::int) g`,
      range,
    );
    await execute(
      `insert into events (type, occurred_at, data)
      select 'pet.created', now() - make_interval(days => case when g % 2 = 0 then 8 else 1 end),
        jsonb_build_object('id', g, 'name', ${seededPetName('g')})
      from generate_series($1::int, $2::int) g order by g % 2 = 1, g`,
      range,
    );
  }
  await execute(`insert into orders (pet_id, status)
    select id, 'delivered' from pets where id % 100 = 50`);
}

/** Bytes under a folder, as du counts them. */
export function folderMiB(path: string): number {
  return Number(execFileSync('du', ['-sk', path], { encoding: 'utf8' }).split('\t')[0]) / 1024;
}
