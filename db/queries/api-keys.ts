import { and, asc, count, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import type { Database } from '../database.js';
import { runnerFor, statementOf, type Queryable } from '../runner.js';
import { apiKeys, DATABASE_CASING } from '../schema.js';

export type ApiKeyScope = (typeof apiKeys.scope.enumValues)[number];

export interface ApiKeyRecord {
  id: string;
  name: string;
  scope: ApiKeyScope;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const publicColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  scope: apiKeys.scope,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
};

export async function insertApiKey(
  db: Database,
  key: { id: string; name: string; secretHash: string; scope: ApiKeyScope },
): Promise<ApiKeyRecord> {
  const rows = await db.insert(apiKeys).values(key).returning(publicColumns);
  const created = rows[0];
  if (!created) throw new Error('INSERT ... RETURNING returned no row');
  return created;
}

/** A quick read: a request whose key is not cached waits on it before anything else. */
const activeKey = statementOf(
  new QueryBuilder({ casing: DATABASE_CASING })
    .select({ secretHash: apiKeys.secretHash, scope: apiKeys.scope })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, sql.placeholder('id')), isNull(apiKeys.revokedAt)))
    .limit(1),
  { quickRead: true },
);

/** The stored hash and scope of a key that has not been revoked. */
export async function findActiveApiKey(
  on: Queryable,
  id: string,
): Promise<{ secretHash: string; scope: ApiKeyScope } | undefined> {
  const [row] = await runnerFor(on).rows(activeKey, { id });
  return row && { secretHash: row[0] as string, scope: row[1] as ApiKeyScope };
}

export function listApiKeys(db: Database): Promise<ApiKeyRecord[]> {
  return db.select(publicColumns).from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

export async function countActiveApiKeys(db: Database): Promise<number> {
  const rows = await db.select({ n: count() }).from(apiKeys).where(isNull(apiKeys.revokedAt));
  return rows[0]?.n ?? 0;
}

/** Revokes a key; false when no active key has that id. */
export async function revokeApiKey(db: Database, id: string): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

export async function touchApiKeys(db: Database, ids: string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.update(apiKeys).set({ lastUsedAt: at }).where(inArray(apiKeys.id, ids));
}

/** The keys among `ids` that have been revoked (a key unknown here, from configuration, is not). */
export async function revokedApiKeyIds(db: Database, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(inArray(apiKeys.id, ids), isNotNull(apiKeys.revokedAt)));
  return rows.map((row) => row.id);
}
