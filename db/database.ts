import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema.js';

/** The query surface both drivers share; queries are written once against it. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/**
 * Rows of a raw SQL statement. postgres.js answers `execute` with the rows themselves (int8 as
 * text), PGlite with `{ rows }`; callers see one shape.
 */
export async function executeRows<T extends Record<string, unknown>>(
  db: Database,
  query: SQL,
): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}
