import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

/** Scans of the webhook tables the server's statistics counted so far. */
async function webhookScans(database: TestDatabase): Promise<number> {
  const [row] = await executeRows<{ scans: string }>(
    database.handle.db,
    sql`select sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::text as scans
        from pg_stat_user_tables where relname in ('webhook_endpoints', 'webhook_deliveries')`,
  );
  return Number(row?.scans ?? 0);
}

/**
 * The scan count once it stopped moving: a connection reports its scans when it closes, and the
 * server counts them shortly after.
 */
async function settledScans(database: TestDatabase): Promise<number> {
  let last = await webhookScans(database);
  for (let waited = 0; waited < 10_000; waited += 1_000) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const now = await webhookScans(database);
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** The scans of one server's life of `ms` idle. */
async function scansOfIdleLife(database: TestDatabase, ms: number): Promise<number> {
  const before = await settledScans(database);
  const server = await startTestServer({ database, keepDatabase: true });
  await new Promise((resolve) => setTimeout(resolve, ms));
  await server.close();
  return (await settledScans(database)) - before;
}

describeOnPostgres('webhook delivery with no endpoint at all', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.destroy());

  it('looks once at start and then never reads the webhook tables while idle', async () => {
    const short = await scansOfIdleLife(database, 2_000);
    const long = await scansOfIdleLife(database, 7_000);
    // Polled, the longer life would have looked about once a second.
    expect(long).toBe(short);
  }, 60_000);
});
