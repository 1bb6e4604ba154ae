import type { PGlite } from '@electric-sql/pglite';
import type { Sql } from 'postgres';
import type { Database } from './database.js';

/**
 * Runs one statement and answers its rows as arrays of the driver's values, in select-list
 * order. For a hot read whose statement drizzle builds but whose rows we map ourselves:
 * drizzle maps every row generically (an object built field by field through an iterator per
 * field), which for a 100-row page was a quarter of the request's allocations and ~10% of
 * its CPU in a profile.
 */
export type ArrayRowReader = (text: string, params: unknown[]) => Promise<unknown[][]>;

const readers = new WeakMap<Database, ArrayRowReader>();

export function postgresArrayRows(client: Sql): ArrayRowReader {
  // `prepare`: postgres.js parses the statement once per connection and reuses it by its text,
  // as it does for drizzle's prepared queries. The query itself is returned, not awaited in an
  // async wrapper: with the wrapper, fresh processes fell into the GC state listPets describes.
  return (text, params) =>
    client.unsafe<unknown[][]>(text, params as never[], { prepare: true }).values();
}

export function pgliteArrayRows(client: PGlite): ArrayRowReader {
  return async (text, params) =>
    (await client.query<unknown[]>(text, params, { rowMode: 'array' })).rows;
}

/** Called by openDatabase for the database it opens. */
export function attachArrayRowReader(db: Database, reader: ArrayRowReader): void {
  readers.set(db, reader);
}

/** The reader of a database opened by openDatabase; undefined for a transaction. */
export function findArrayRowReader(db: Database): ArrayRowReader | undefined {
  return readers.get(db);
}

/** The reader of a database opened by openDatabase; a transaction has none. */
export function arrayRowReader(db: Database): ArrayRowReader {
  const reader = readers.get(db);
  if (!reader) throw new Error('Array rows are read from a database opened by openDatabase');
  return reader;
}
