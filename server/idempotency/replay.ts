import { createHash } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import type { Database } from '../../db/database.js';
import {
  findIdempotencyRecord,
  saveIdempotencyRecord,
  tryLockIdempotencyKey,
  type IdempotencyScope,
} from '../../db/queries/idempotency-keys.js';

/** How long a key is remembered (stated in the README and the OpenAPI document). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** What a request with an Idempotency-Key asks for: the operation and its validated input. */
export interface IdempotentRequest {
  operation: string;
  /**
   * The validated input in a canonical form, so `{status: "available"}` and its default
   * agree. Fingerprints of createPet keys are `[name, categoryId, status]`, as they always were.
   */
  canonicalInput: unknown;
}

export interface Outcome<T> {
  /** The response body: the new one, or the one the first request with this key was answered with. */
  body: T;
  replayed: boolean;
}

function fingerprint(canonicalInput: unknown): string {
  return createHash('sha256').update(JSON.stringify(canonicalInput)).digest('base64url');
}

/**
 * Runs `perform` and records its response under the key in one transaction, so a crash can
 * never leave one without the other; a retry gets the recorded body back, exactly as it was
 * first sent, whatever happened to the resource since. The non-blocking advisory lock turns a
 * concurrent duplicate into an immediate 409 instead of a wait on the key's unique index; once
 * the first commits, the lock is free and the retry finds its record.
 */
export function performIdempotently<T>(
  db: Database,
  scope: IdempotencyScope,
  request: IdempotentRequest,
  perform: (tx: Database) => Promise<T>,
): Promise<Outcome<T>> {
  const requestHash = fingerprint(request.canonicalInput);
  return db.transaction(async (tx) => {
    if (!(await tryLockIdempotencyKey(tx, scope))) {
      throw new TRPCError({
        code: 'CONFLICT',
        message: `A request with Idempotency-Key "${scope.key}" is still in progress; retry after it completes`,
      });
    }
    const record = await findIdempotencyRecord(tx, scope, IDEMPOTENCY_TTL_SECONDS);
    if (record) {
      if (record.operation !== request.operation || record.requestHash !== requestHash) {
        throw new TRPCError({
          code: 'UNPROCESSABLE_CONTENT',
          message: `Idempotency-Key "${scope.key}" was already used with a different request body`,
        });
      }
      return { body: record.response as T, replayed: true };
    }
    const body = await perform(tx);
    await saveIdempotencyRecord(tx, scope, {
      operation: request.operation,
      requestHash,
      response: body,
    });
    return { body, replayed: false };
  });
}
