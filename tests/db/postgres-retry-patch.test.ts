import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeOnPostgres, type TestDatabase } from '../helpers/database.js';

/**
 * patches/postgres+3.4.9.patch, third part: postgres.js retries a named statement the server
 * connection does not hold (what a pooler in transaction mode does to it). Inside a transaction
 * that failure has aborted the transaction, so the retry cannot succeed, except for COMMIT,
 * which then answers ROLLBACK with no error: `begin` resolved for a transaction that rolled
 * back. Unpatched, the second transaction here resolves and its row is missing; with only the
 * retry stopped, the failed COMMIT left the connection reserved in its failed transaction, and
 * the next query waited for it forever.
 */
let database: TestDatabase;

describeOnPostgres('postgres.js in a transaction whose named statements the server lost', () => {
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.destroy());

  it('fails the transaction, never acknowledges it', async () => {
    if (database.options.kind !== 'postgres') throw new Error('a PostgreSQL database');
    const sql = postgres(database.options.url, { max: 1, onnotice: () => undefined });
    const marker = `retry-${Date.now()}-${Math.random()}`;
    try {
      // The first transaction prepares BEGIN's and COMMIT's statements on the connection.
      await sql.begin(async (tx) => tx`select 1`);
      const second = sql.begin(async (tx) => {
        await tx`insert into pets (name, category_id) values (${marker}, 1)`;
        await tx.unsafe('deallocate all');
      });
      await expect(second).rejects.toThrow(/prepared statement|does not exist/);
      const [{ n }] = (await sql`select count(*)::int as n from pets where name = ${marker}`) as [
        { n: number },
      ];
      expect(n).toBe(0);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
