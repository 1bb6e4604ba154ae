import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseBudget } from '../../db/deadline.js';
import { boundRunner, runnerOf, statementOf, transaction } from '../../db/runner.js';
import { createTestDatabase, testDatabaseTarget, type TestDatabase } from '../helpers/database.js';

/**
 * The runner keeps a request's deadline on the database (db/statement-bounds.ts): what a spent
 * budget asks for is never sent, on either database, and on PostgreSQL a statement is cancelled
 * when its budget runs out, a transaction's statements carry what is left of it, and a statement
 * no request waits for is cancelled after 5 s.
 */
let database: TestDatabase;
let observer: postgres.Sql | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  if (database.options.kind === 'postgres') {
    observer = postgres(database.options.url, { max: 1, onnotice: () => undefined });
  }
});
afterAll(async () => {
  await observer?.end();
  await database.destroy();
});

const rows = (statement: ReturnType<typeof statementOf>) =>
  runnerOf(database.handle.db).rows(statement);
const sleep = (seconds: number) => statementOf(sql`select pg_sleep(${seconds})`);
const settings = statementOf(
  sql`select
    (select setting from pg_settings where name = 'statement_timeout'),
    (select setting from pg_settings where name = 'lock_timeout')`,
);

describe('a request that gave up', () => {
  it('sends nothing more: a later statement and a later transaction are refused', async () => {
    const budget = new DatabaseBudget(50);
    let sent = 0;
    const runner = boundRunner(database.handle.db, budget);
    const work = budget.within(async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await runner.rows(statementOf(sql`select 1`)).then(() => sent++);
    });
    await expect(work).rejects.toMatchObject({ code: 'DATABASE_DEADLINE' });
    const late = budget.within(() => transaction(runner, () => Promise.resolve(1)));
    await expect(late).rejects.toMatchObject({ code: 'DATABASE_DEADLINE' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sent).toBe(0);
  });
});

describe.runIf(testDatabaseTarget().kind === 'postgres')('on PostgreSQL', () => {
  const sleeping = async () => {
    if (!observer) throw new Error('no observer on PostgreSQL');
    const [row] = await observer<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and state = 'active' and query like 'select pg_sleep%'`;
    return row?.n;
  };

  it("cancels the running statement when the request's budget runs out", async () => {
    const budget = new DatabaseBudget(300);
    const runner = boundRunner(database.handle.db, budget);
    await expect(budget.within(() => runner.rows(sleep(10)))).rejects.toMatchObject({
      code: 'DATABASE_DEADLINE',
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await sleeping()).toBe(0);
  });

  it('gives a transaction what is left of the budget, and lock waits of 200 ms', async () => {
    const budget = new DatabaseBudget(1_000);
    const [row] = await budget.within(() =>
      transaction(boundRunner(database.handle.db, budget), (tx) => tx.rows(settings)),
    );
    const [statementMs, lockMs] = (row ?? []).map((value) => parseInt(String(value), 10));
    expect(statementMs).toBeGreaterThan(0);
    expect(statementMs).toBeLessThanOrEqual(1_000);
    expect(lockMs).toBe(200);
  });

  it('cancels a statement no request waits for after 5 s', async () => {
    const started = performance.now();
    await expect(rows(sleep(10))).rejects.toMatchObject({ code: '57014' });
    expect(performance.now() - started).toBeLessThan(6_000);
  }, 15_000);
});
