import type { OrderRow } from '../../../db/queries/orders.js';
import type { PetRow } from '../../../db/queries/pets.js';
import type { Order } from '../schemas/order.js';
import type { Pet } from '../schemas/pet.js';

/** A pet as answers and events show it: no version, no deletion time. */
export function petBody({ id, name, categoryId, status }: PetRow): Pet {
  return { id, name, categoryId, status };
}

/** An order as answers and events show it, its times in RFC 3339 UTC. */
export function orderBody(order: OrderRow): Order {
  return {
    id: order.id,
    petId: order.petId,
    status: order.status,
    placedAt: order.placedAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
}
