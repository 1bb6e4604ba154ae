import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate as migrateWithPostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

export const migrationsFolder = fileURLToPath(new URL('../drizzle', import.meta.url));

/** Any constant works; it only has to be the same for every instance of this service. */
const MIGRATION_LOCK_ID = 7_246_110_842;

/**
 * Holds a transaction-scoped advisory lock on one connection while another runs the migrations,
 * so servers that start together take turns instead of racing on the migrations table; the
 * second one then finds nothing left to apply. Not a session lock: behind a pooler in
 * transaction mode its unlock could reach another server connection and leave it held there
 * for good. A transaction keeps its server connection until it ends, on any pooler.
 */
export async function migratePostgres(url: string): Promise<void> {
  const options = { max: 1, connect_timeout: 5, prepare: false, onnotice: () => undefined };
  const lock = postgres(url, options);
  const client = postgres(url, options);
  try {
    await lock.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`;
      await migrateWithPostgres(drizzle(client), { migrationsFolder });
    });
  } finally {
    await Promise.all([lock.end({ timeout: 5 }), client.end({ timeout: 5 })]);
  }
}
