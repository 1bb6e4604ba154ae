import type { Runner } from '../../../db/runner.js';
import { ConflictError, NotFoundError, UnprocessableError } from '../errors.js';
import { appendEvents } from '../../../db/queries/events.js';
import {
  findOrder,
  insertOrder,
  lockOrder,
  setOrderStatus,
  type OrderRow,
  type OrderStatus,
} from '../../../db/queries/orders.js';
import { lockPet, updatePetRow } from '../../../db/queries/pet-changes.js';
import { orderBody, petBody } from './bodies.js';
import { PET_STATUS_WHEN_ORDER, requireOrderMove } from './transitions.js';

export function orderNotFound(orderId: number): NotFoundError {
  return new NotFoundError(`No order with id ${orderId}`);
}

/**
 * Places an order: the pet must be available and becomes pending, in the same transaction.
 * The pet's row lock makes concurrent orders for one pet take turns, so exactly one finds it
 * available; the others find it pending (409). A pet deleted meanwhile is not found (422).
 */
export async function orderPet(tx: Runner, petId: number): Promise<OrderRow> {
  const pet = await lockPet(tx, petId);
  if (!pet) {
    throw new UnprocessableError(`No pet with id ${petId}`);
  }
  if (pet.status !== 'available') {
    throw new ConflictError(`Pet ${petId} is ${pet.status}, not available`);
  }
  const reserved = await updatePetRow(tx, petId, { status: 'pending' });
  const order = await insertOrder(tx, petId);
  await appendEvents(tx, [
    { type: 'order.placed', data: orderBody(order) },
    { type: 'pet.updated', data: petBody(reserved) },
  ]);
  return order;
}

/**
 * Moves an order along its life cycle; delivered sells its pet and cancelled makes it
 * available again, in the same transaction. The pet is locked before the order, in the same
 * order as orderPet and pet changes take their locks, so two of them never wait on each other.
 */
export async function moveOrder(
  tx: Runner,
  orderId: number,
  status: OrderStatus,
): Promise<OrderRow> {
  const seen = await findOrder(tx, orderId);
  if (!seen) throw orderNotFound(orderId);
  await lockPet(tx, seen.petId);
  const order = await lockOrder(tx, orderId);
  if (!order) throw orderNotFound(orderId);
  requireOrderMove(orderId, order.status, status);
  if (order.status === status) return order;
  const petStatus = PET_STATUS_WHEN_ORDER[status];
  const pet = petStatus && (await updatePetRow(tx, order.petId, { status: petStatus }));
  const moved = await setOrderStatus(tx, orderId, status);
  await appendEvents(tx, [
    { type: 'order.updated', data: orderBody(moved) },
    ...(pet ? [{ type: 'pet.updated' as const, data: petBody(pet) }] : []),
  ]);
  return moved;
}
