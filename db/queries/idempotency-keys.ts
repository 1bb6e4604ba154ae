import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { Database } from '../database.js';
import { idempotencyKeys, type StoredResponse } from '../schema.js';

export interface IdempotencyScope {
  apiKeyId: string;
  key: string;
}

export interface IdempotencyRecord {
  /** The operationId the key was first used on. */
  operation: string;
  requestHash: string;
  response: StoredResponse;
}

const cutoff = (ttlSeconds: number) => sql`now() - make_interval(secs => ${ttlSeconds})`;

/**
 * Takes a transaction-scoped lock on one (API key, Idempotency-Key) pair without waiting: false
 * means another transaction holds it, i.e. the same request is in flight right now. A 64-bit
 * hash keeps accidental collisions (which would only cause a spurious 409) negligible.
 */
export async function tryLockIdempotencyKey(
  tx: Database,
  { apiKeyId, key }: IdempotencyScope,
): Promise<boolean> {
  const lockId = sql`hashtextextended(${`idempotency:${apiKeyId}:${key}`}, 0)`;
  const rows = await tx
    .select({ locked: sql<boolean>`pg_try_advisory_xact_lock(${lockId})` })
    .from(sql`(values (1)) as one`);
  return rows[0]?.locked === true;
}

/** The completed request recorded under this key, unless it is older than the retention window. */
export async function findIdempotencyRecord(
  db: Database,
  { apiKeyId, key }: IdempotencyScope,
  ttlSeconds: number,
): Promise<IdempotencyRecord | undefined> {
  const rows = await db
    .select({
      operation: idempotencyKeys.operation,
      requestHash: idempotencyKeys.requestHash,
      response: idempotencyKeys.response,
    })
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.apiKeyId, apiKeyId),
        eq(idempotencyKeys.key, key),
        gt(idempotencyKeys.createdAt, cutoff(ttlSeconds)),
      ),
    )
    .limit(1);
  return rows[0];
}

/**
 * Records the key; an expired row for the same key that the purge has not reached yet is
 * replaced rather than colliding on the primary key.
 */
export async function saveIdempotencyRecord(
  tx: Database,
  scope: IdempotencyScope,
  record: IdempotencyRecord,
): Promise<void> {
  await tx
    .insert(idempotencyKeys)
    .values({ ...scope, ...record })
    .onConflictDoUpdate({
      target: [idempotencyKeys.apiKeyId, idempotencyKeys.key],
      set: { ...record, createdAt: sql`now()` },
    });
}

/**
 * Deletes at most `batchSize` expired rows. SKIP LOCKED lets it pass over a row a request is
 * replacing at this moment instead of waiting for it.
 */
export async function deleteExpiredIdempotencyKeys(
  db: Database,
  ttlSeconds: number,
  batchSize: number,
): Promise<number> {
  const expired = db
    .select({ apiKeyId: idempotencyKeys.apiKeyId, key: idempotencyKeys.key })
    .from(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, cutoff(ttlSeconds)))
    .limit(batchSize)
    .for('update', { skipLocked: true });
  const deleted = await db
    .delete(idempotencyKeys)
    .where(
      and(
        lt(idempotencyKeys.createdAt, cutoff(ttlSeconds)),
        sql`(${idempotencyKeys.apiKeyId}, ${idempotencyKeys.key}) in (${expired})`,
      ),
    )
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}
