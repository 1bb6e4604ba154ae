import { and, asc, lt, sql } from 'drizzle-orm';
import type { Database } from '../database.js';
import { statementOf, type Runner } from '../runner.js';
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

const lockStatement = statementOf(
  sql`select pg_try_advisory_xact_lock(hashtextextended(${sql.placeholder('scope')}, 0))`,
);

/**
 * Takes a transaction-scoped lock on one (API key, Idempotency-Key) pair without waiting: false
 * means another transaction holds it, i.e. the same request is in flight right now. A 64-bit
 * hash keeps accidental collisions (which would only cause a spurious 409) negligible.
 */
export async function tryLockIdempotencyKey(
  tx: Runner,
  { apiKeyId, key }: IdempotencyScope,
): Promise<boolean> {
  const [row] = await tx.rows(lockStatement, { scope: `idempotency:${apiKeyId}:${key}` });
  return row?.[0] === true;
}

const findStatement = statementOf(sql`
  select operation, request_hash, response from idempotency_keys
  where api_key_id = ${sql.placeholder('apiKeyId')} and key = ${sql.placeholder('key')}
    and created_at > now() - make_interval(secs => ${sql.placeholder('ttlSeconds')}::int)
  limit 1`);

/** The completed request recorded under this key, unless it is older than the retention window. */
export async function findIdempotencyRecord(
  tx: Runner,
  { apiKeyId, key }: IdempotencyScope,
  ttlSeconds: number,
): Promise<IdempotencyRecord | undefined> {
  const [row] = await tx.rows(findStatement, { apiKeyId, key, ttlSeconds });
  if (!row) return undefined;
  // jsonb comes parsed from PGlite and postgres.js alike.
  return {
    operation: row[0] as string,
    requestHash: row[1] as string,
    response: row[2] as StoredResponse,
  };
}

const saveStatement = statementOf(sql`
  insert into idempotency_keys (api_key_id, key, operation, request_hash, response)
  values (${sql.placeholder('apiKeyId')}, ${sql.placeholder('key')}, ${sql.placeholder('operation')},
    ${sql.placeholder('requestHash')}, ${sql.placeholder('response')}::text::jsonb)
  on conflict (api_key_id, key) do update set
    operation = excluded.operation, request_hash = excluded.request_hash,
    response = excluded.response, created_at = now()`);

/**
 * Records the key; an expired row for the same key that the purge has not reached yet is
 * replaced rather than colliding on the primary key.
 */
export async function saveIdempotencyRecord(
  tx: Runner,
  scope: IdempotencyScope,
  record: IdempotencyRecord,
): Promise<void> {
  await tx.rows(saveStatement, {
    ...scope,
    operation: record.operation,
    requestHash: record.requestHash,
    response: JSON.stringify(record.response),
  });
}

/**
 * Deletes at most `batchSize` expired rows, oldest first through idempotency_keys_created_at_idx
 * (without the order the planner may scan the table for them), and deletes them by their
 * row addresses (a key list `in (...)` was hashed against a scan of the whole table). SKIP
 * LOCKED lets it pass over a row a request is replacing at this moment instead of waiting for
 * it; the rows it locked keep their addresses until the statement ends.
 */
export async function deleteExpiredIdempotencyKeys(
  db: Database,
  ttlSeconds: number,
  batchSize: number,
): Promise<number> {
  const expired = db
    .select({ row: sql`ctid` })
    .from(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, cutoff(ttlSeconds)))
    .orderBy(asc(idempotencyKeys.createdAt))
    .limit(batchSize)
    .for('update', { skipLocked: true });
  const deleted = await db
    .delete(idempotencyKeys)
    .where(
      and(lt(idempotencyKeys.createdAt, cutoff(ttlSeconds)), sql`ctid = any(array(${expired}))`),
    )
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}
