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
  /** A lost connection lost its locks too; the next call takes a new one. */
  const run = async <T>(work: (sql: ReservedSql) => Promise<T>): Promise<T> => {
    const sql = await connection();
    try {
      return await work(sql);
    } catch (error) {
      session = undefined;
      sql.release();
      throw error;
    }
  };
  return {
    acquire: (key, slots) =>
      run(async (sql) => {
        // LIMIT 1 stops the scan at the first slot it locks, so no other slot is taken.
        const [row] = await sql<{ slot: number }[]>`
          select s as slot from generate_series(0, ${slots - 1}::int) as s
          where pg_try_advisory_lock(hashtext(${key}), s) limit 1`;
        return row?.slot;
      }),
    release: (key, slot) =>
      run(async (sql) => {
        await sql`select pg_advisory_unlock(hashtext(${key}), ${slot}::int)`;
      }),
    close: async () => {
      const open = session;
      session = undefined;
      (await open)?.release();
    },
  };
}
