import { fileURLToPath } from 'node:url';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate as migrateWithPglite } from 'drizzle-orm/pglite/migrator';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate as migrateWithPostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

export const migrationsFolder = fileURLToPath(new URL('../drizzle', import.meta.url));

/** Any constant works; it only has to be the same for every instance of this service. */
const MIGRATION_LOCK_ID = 7_246_110_842;

export async function migratePglite(db: PgliteDatabase<Record<string, unknown>>): Promise<void> {
  await migrateWithPglite(db, { migrationsFolder });
}

/**
 * Holds a session advisory lock for the whole run, so servers that start together take turns
 * instead of racing on the migrations table; the second one then finds nothing left to apply.
 */
export async function migratePostgres(url: string): Promise<void> {
  // One connection, so the lock, the migration and the unlock share a session.
  const client = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => undefined });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await migrateWithPostgres(drizzle(client), { migrationsFolder });
    await client`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}
