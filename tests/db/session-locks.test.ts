import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, expect, it } from 'vitest';
import { postgresSessionLocks, type SessionLocks } from '../../db/session-locks.js';
import { testDatabaseTarget, describeOnPostgres } from '../helpers/database.js';

const target = testDatabaseTarget();

/** Advisory locks are PostgreSQL's; PGlite counts stream slots in its one process instead. */
describeOnPostgres('session locks (PostgreSQL)', () => {
  const clients: postgres.Sql[] = [];
  const allLocks: SessionLocks[] = [];
  /** One connection per pool, so that the connection a lock was taken on is the one reused. */
  const instance = (): { sql: postgres.Sql; locks: SessionLocks } => {
    if (target.kind !== 'postgres') throw new Error('PostgreSQL only');
    const sql = postgres(target.url, { max: 1, onnotice: () => undefined });
    const locks = postgresSessionLocks(sql);
    clients.push(sql);
    allLocks.push(locks);
    return { sql, locks };
  };
  // A reserved connection not given back would hold end() open.
  afterAll(async () => {
    await Promise.all(allLocks.map((locks) => locks.close()));
    await Promise.all(clients.map((client) => client.end()));
  });

  it('counts slots across processes, and gives a released slot to the next one asking', async () => {
    const key = `test:${randomUUID()}`;
    const [one, two] = [instance(), instance()];
    expect(await one.locks.acquire(key, 2)).toBe(0);
    expect(await two.locks.acquire(key, 2)).toBe(1);
    expect(await one.locks.acquire(key, 2)).toBeUndefined();
    expect(await two.locks.acquire(key, 2)).toBeUndefined();
    await one.locks.release(key, 0);
    expect(await two.locks.acquire(key, 2)).toBe(0);
  });

  it('gives back its locks when a query fails, not leaving them on a pooled connection', async () => {
    const key = `test:${randomUUID()}`;
    const { sql, locks } = instance();
    expect(await locks.acquire(key, 1)).toBe(0);
    // A slot number out of int range fails the unlock query on a connection that stays alive.
    await expect(locks.release(key, 2 ** 40)).rejects.toThrow(/out of range/);
    const [held] = await sql<{ count: number }[]>`
      select count(*)::int as count from pg_locks
      where locktype = 'advisory' and pid = pg_backend_pid()`;
    expect(held?.count).toBe(0);
    expect(await instance().locks.acquire(key, 1)).toBe(0);
  });

  it('gives a slot being released to an acquire asked for meanwhile', async () => {
    const key = `test:${randomUUID()}`;
    const { locks } = instance();
    expect(await locks.acquire(key, 1)).toBe(0);
    // The acquire waits for the release under way: a client whose stream just closed is not
    // refused, and the slot it gets is not counted twice.
    const [, taken] = await Promise.all([locks.release(key, 0), locks.acquire(key, 1)]);
    expect(taken).toBe(0);
    expect(await locks.acquire(key, 1)).toBeUndefined();
    await locks.release(key, 0);
    expect(await locks.acquire(key, 1)).toBe(0);
  });

  it('takes a slot again after a failed query gave every lock back', async () => {
    const key = `test:${randomUUID()}`;
    const { locks } = instance();
    expect(await locks.acquire(key, 1)).toBe(0);
    await expect(locks.release(key, 2 ** 40)).rejects.toThrow(/out of range/);
    expect(await locks.acquire(key, 1)).toBe(0);
  });
});
