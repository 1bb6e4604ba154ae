import { createHash } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import type { Database } from '../../db/client.js';
import {
  findIdempotencyRecord,
  saveIdempotencyRecord,
  tryLockIdempotencyKey,
  type IdempotencyScope,
} from '../../db/queries/idempotency-keys.js';
import { findPet, insertPet, type NewPetRow, type PetRow } from '../../db/queries/pets.js';

/** How long a key is remembered (stated in the README and the OpenAPI document). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export interface CreateOutcome {
  pet: PetRow;
  /** True when the key had already created this pet and nothing new was stored. */
  replayed: boolean;
}

/** Fingerprint of the validated input, so `{status: "available"}` and its default agree. */
function fingerprint(input: NewPetRow): string {
  const canonical = JSON.stringify([input.name, input.categoryId, input.status]);
  return createHash('sha256').update(canonical).digest('base64url');
}

/**
 * Creates the pet and records the key in one transaction, so a crash can never leave one
 * without the other. The non-blocking advisory lock turns a concurrent duplicate into an
 * immediate 409 instead of a wait on the key's unique index; once the first commits, the lock
 * is free and the retry finds its record.
 */
export function createPetIdempotently(
  db: Database,
  scope: IdempotencyScope,
  input: NewPetRow,
): Promise<CreateOutcome> {
  const requestHash = fingerprint(input);
  return db.transaction(async (tx) => {
    if (!(await tryLockIdempotencyKey(tx, scope))) {
      throw new TRPCError({
        code: 'CONFLICT',
        message: `A request with Idempotency-Key "${scope.key}" is still in progress; retry after it completes`,
      });
    }
    const record = await findIdempotencyRecord(tx, scope, IDEMPOTENCY_TTL_SECONDS);
    if (record) {
      if (record.requestHash !== requestHash) {
        throw new TRPCError({
          code: 'UNPROCESSABLE_CONTENT',
          message: `Idempotency-Key "${scope.key}" was already used with a different request body`,
        });
      }
      // Pets are never updated, so the row is exactly the body the first response carried.
      const pet = await findPet(tx, record.petId);
      if (!pet) throw new Error(`Idempotency record points at missing pet ${record.petId}`);
      return { pet, replayed: true };
    }
    const pet = await insertPet(tx, input);
    await saveIdempotencyRecord(tx, scope, { requestHash, petId: pet.id });
    return { pet, replayed: false };
  });
}
