import { ConflictError } from '../errors.js';
import type { OrderStatus } from '../../../db/queries/orders.js';
import type { PetStatus } from '../../../db/queries/pets.js';

/** A pet's life cycle: `sold` is final. */
const PET_MOVES: Record<PetStatus, readonly PetStatus[]> = {
  available: ['pending', 'sold'],
  pending: ['available', 'sold'],
  sold: [],
};

/** An order's: `delivered` and `cancelled` are final. */
const ORDER_MOVES: Record<OrderStatus, readonly OrderStatus[]> = {
  placed: ['approved', 'cancelled'],
  approved: ['delivered', 'cancelled'],
  delivered: [],
  cancelled: [],
};

/** What settling an order does to its pet: delivered sells it, cancelled frees it. */
export const PET_STATUS_WHEN_ORDER: Partial<Record<OrderStatus, PetStatus>> = {
  delivered: 'sold',
  cancelled: 'available',
};

function conflict(message: string): ConflictError {
  return new ConflictError(message);
}

/** Refuses a status change the pet's life cycle does not allow; the same status is no change. */
export function requirePetMove(petId: number, from: PetStatus, to: PetStatus): void {
  if (from === to || PET_MOVES[from].includes(to)) return;
  throw conflict(
    `Pet ${petId} cannot go from ${from} to ${to}` +
      (PET_MOVES[from].length
        ? `; from ${from} it can go to ${PET_MOVES[from].join(' or ')}`
        : `; ${from} is final`),
  );
}

export function requireOrderMove(orderId: number, from: OrderStatus, to: OrderStatus): void {
  if (from === to || ORDER_MOVES[from].includes(to)) return;
  throw conflict(
    `Order ${orderId} cannot go from ${from} to ${to}` +
      (ORDER_MOVES[from].length
        ? `; from ${from} it can go to ${ORDER_MOVES[from].join(' or ')}`
        : `; ${from} is final`),
  );
}
