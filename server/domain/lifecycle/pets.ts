import type { Runner } from '../../../db/runner.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { appendEvents } from '../../../db/queries/events.js';
import { findOpenOrder } from '../../../db/queries/orders.js';
import { deletePetRow, lockPet, updatePetRow } from '../../../db/queries/pet-changes.js';
import type { NewPetRow, VersionedPetRow } from '../../../db/queries/pets.js';
import { etagOf, requirePreconditions, type Preconditions } from '../versions/etag.js';
import { petBody } from './bodies.js';
import { requirePetMove } from './transitions.js';

export function petNotFound(petId: number): NotFoundError {
  return new NotFoundError(`No pet with id ${petId}`);
}

/** The pet, locked; preconditions checked against it before "no such pet", as RFC 9110 orders them. */
async function lockForChange(tx: Runner, petId: number, conditions: Preconditions) {
  const pet = await lockPet(tx, petId);
  requirePreconditions(conditions, pet && etagOf(pet));
  if (!pet) throw petNotFound(petId);
  return pet;
}

async function refuseWhileOrdered(tx: Runner, petId: number, what: string): Promise<void> {
  const order = await findOpenOrder(tx, petId);
  if (!order) return;
  throw new ConflictError(`Pet ${petId} has an open order (${order.id}, ${order.status}): ${what}`);
}

/**
 * Applies a merge patch in one transaction, recording `pet.updated` when anything changed. Only fields that differ are written; a patch that
 * changes nothing leaves the pet (and its version) as it was. A refused status change refuses
 * the whole patch. While an order holds the pet, its status follows the order.
 */
export async function patchPet(
  tx: Runner,
  petId: number,
  patch: Partial<NewPetRow>,
  conditions: Preconditions,
): Promise<VersionedPetRow> {
  const pet = await lockForChange(tx, petId, conditions);
  const changes: Partial<NewPetRow> = {};
  if (patch.name !== undefined && patch.name !== pet.name) changes.name = patch.name;
  if (patch.categoryId !== undefined && patch.categoryId !== pet.categoryId) {
    changes.categoryId = patch.categoryId;
  }
  if (patch.status !== undefined && patch.status !== pet.status) {
    requirePetMove(petId, pet.status, patch.status);
    await refuseWhileOrdered(tx, petId, 'its status follows the order');
    changes.status = patch.status;
  }
  if (Object.keys(changes).length === 0) return pet;
  const updated = await updatePetRow(tx, petId, changes);
  await appendEvents(tx, [{ type: 'pet.updated', data: petBody(updated) }]);
  return updated;
}

/** Deletes a pet no open order holds; its row stays, so the id is never reused. */
export async function removePet(
  tx: Runner,
  petId: number,
  conditions: Preconditions,
): Promise<void> {
  await lockForChange(tx, petId, conditions);
  await refuseWhileOrdered(tx, petId, 'settle or cancel it first');
  await deletePetRow(tx, petId);
  await appendEvents(tx, [{ type: 'pet.deleted', data: { id: petId } }]);
}
