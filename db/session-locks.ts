import type { ReservedSql, Sql } from 'postgres';

/**
 * Numbered slots under a key, counted across every process and instance on one PostgreSQL:
 * each slot is a session-level advisory lock held on one connection of this process's own, so
 * a process that dies gives its slots back with its connection.
 */
export interface SessionLocks {
  /** Takes the first free slot of `slots` under `key`; its number, or undefined when none is free. */
  acquire(key: string, slots: number): Promise<number | undefined>;
  release(key: string, slot: number): Promise<void>;
  close(): Promise<void>;
}

export function postgresSessionLocks(client: Sql): SessionLocks {
  let session: Promise<ReservedSql> | undefined;
  const connection = () => (session ??= client.reserve());
  /**
   * The slots this process holds, by key. A session's advisory locks are re-entrant: PostgreSQL
   * grants this connection a lock it already holds, so the query must skip them itself.
   */
  const held = new Map<string, Set<number>>();
  /** Acquires run one after another, so that two never take the same slot. */
  let acquiring: Promise<unknown> = Promise.resolve();
  /** A lost connection lost its locks too; the next call takes a new one. */
  const run = async <T>(work: (sql: ReservedSql) => Promise<T>): Promise<T> => {
    const sql = await connection();
    try {
      return await work(sql);
    } catch (error) {
      session = undefined;
      // Every lock is given back below (or lost with the connection): none is held any more.
      held.clear();
      // A connection that failed a query may still be alive, and back in the pool it would keep
      // its locks for whoever borrows it next; a dead one has lost them already.
      await sql`select pg_advisory_unlock_all()`.catch(() => undefined);
      sql.release();
      throw error;
    }
  };
  const take = (key: string, slots: number) =>
    run(async (sql) => {
      const mine = [...(held.get(key) ?? [])];
      // LIMIT 1 stops the scan at the first slot it locks, so no other slot is taken; CASE keeps
      // PostgreSQL from trying (and so re-entering) a slot this process holds.
      const [row] = await sql<{ slot: number }[]>`
        select s as slot from generate_series(0, ${slots - 1}::int) as s
        where case when s = any(${mine}::int[]) then false
          else pg_try_advisory_lock(hashtext(${key}), s) end
        limit 1`;
      // Added to the slots held now, not to `mine`: a release that completed meanwhile is gone.
      if (row) held.set(key, (held.get(key) ?? new Set()).add(row.slot));
      return row?.slot;
    });
  /**
   * Releases under way. An acquire waits for them: it would skip a slot still being given back
   * and refuse a client whose previous stream had just closed.
   */
  const releasing = new Set<Promise<void>>();
  const unlock = async (key: string, slot: number) => {
    try {
      await run(async (sql) => {
        await sql`select pg_advisory_unlock(hashtext(${key}), ${slot}::int)`;
      });
    } finally {
      // Only once unlocked: until then an acquire must not take it again.
      const mine = held.get(key);
      mine?.delete(slot);
      if (mine?.size === 0) held.delete(key);
    }
  };
  return {
    acquire: (key, slots) => {
      const attempt = acquiring
        .then(() => Promise.allSettled([...releasing]))
        .then(() => take(key, slots));
      acquiring = attempt.catch(() => undefined);
      return attempt;
    },
    release: (key, slot) => {
      const done = unlock(key, slot);
      releasing.add(done);
      const forget = () => releasing.delete(done);
      done.then(forget, forget);
      return done;
    },
    close: async () => {
      const open = session;
      session = undefined;
      held.clear();
      (await open)?.release();
    },
  };
}
