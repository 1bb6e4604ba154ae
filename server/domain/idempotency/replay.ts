import { createHash } from 'node:crypto';
import type { Database } from '../../../db/database.js';
import { transaction, type Runner, type Transactor } from '../../../db/runner.js';
import { ConflictError, UnprocessableError } from '../errors.js';
import {
  findIdempotencyRecord,
  saveIdempotencyRecord,
  tryLockIdempotencyKey,
  type IdempotencyScope,
} from '../../../db/queries/idempotency-keys.js';

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

/** A response as first sent: its body and the headers not derived from the request (ETag). */
export interface Recorded<T> {
  body: T;
  headers: Record<string, string>;
}

export interface Outcome<T> extends Recorded<T> {
  /** True when this is the response the first request with the key was answered with. */
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
  db: Database | Transactor,
  scope: IdempotencyScope,
  request: IdempotentRequest,
  perform: (tx: Runner) => Promise<Recorded<T>>,
): Promise<Outcome<T>> {
  const requestHash = fingerprint(request.canonicalInput);
  return transaction(db, async (tx) => {
    if (!(await tryLockIdempotencyKey(tx, scope))) {
      throw new ConflictError(
        `A request with Idempotency-Key "${scope.key}" is still in progress; retry after it completes`,
      );
    }
    const record = await findIdempotencyRecord(tx, scope, IDEMPOTENCY_TTL_SECONDS);
    if (record) {
      if (record.operation !== request.operation || record.requestHash !== requestHash) {
        throw new UnprocessableError(
          `Idempotency-Key "${scope.key}" was already used with a different request body`,
        );
      }
      return { ...(record.response as Recorded<T>), replayed: true };
    }
    const response = await perform(tx);
    await saveIdempotencyRecord(tx, scope, {
      operation: request.operation,
      requestHash,
      response,
    });
    return { ...response, replayed: false };
  });
}
