import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementOf, transaction } from '../../db/runner.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * PostgreSQL answers the COMMIT of a transaction that an error aborted with ROLLBACK, and no
 * error. Whatever swallowed that error (a driver retrying a statement, as postgres.js does with
 * a prepared statement the server lost), the service must not report the write as done.
 */
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(() => database.destroy());

const failing = statementOf(sql`select 1 / 0`);
const marker = `tx-marker-${Date.now()}`;
const writing = statementOf(
  sql`insert into pets (name, category_id, status) values (${marker}, 1, 'available')`,
);
/** What a pooler in transaction mode does to a session's named statements, between two uses. */
const forgetStatements = statementOf(sql`deallocate all`);
const written = statementOf(sql`select count(*)::int from pets where name = ${marker}`);

describe('transaction()', () => {
  it('fails when the server ended the transaction without committing it', async () => {
    const work = transaction(database.handle.db, async (tx) => {
      await tx.rows(writing);
      await tx.rows(failing).catch(() => undefined);
      return 'acknowledged';
    });
    await expect(work).rejects.toThrow();
  });

  it('acknowledges only what committed when the server forgets named statements mid-way', async () => {
    const { db } = database.handle;
    let acknowledged = 0;
    // Several rounds, so that the statements of the first are named ones in the next.
    for (let round = 0; round < 5; round++) {
      const outcome = await transaction(db, async (tx) => {
        await tx.rows(writing);
        await tx.rows(forgetStatements);
        return 'acknowledged';
      }).catch(() => 'failed');
      if (outcome === 'acknowledged') acknowledged++;
    }
    const [[count]] = (await transaction(db, (tx) => tx.rows(written))) as [[number]];
    expect(count).toBe(acknowledged);
    expect(acknowledged).toBe(5);
  });

  it('resolves with the work once the server committed it', async () => {
    const rows = await transaction(database.handle.db, (tx) =>
      tx.rows(statementOf(sql`select 41 + 1`)),
    );
    expect(rows).toEqual([[42]]);
  });
});
