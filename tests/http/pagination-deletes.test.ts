import { describe, expect, it } from 'vitest';
import type { Order } from '../../server/domain/schemas/order.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { insertManyPets } from '../helpers/factories.js';
import { runBounded } from '../helpers/load.js';
import { walkLinks } from '../helpers/pages.js';
import { useTestServer } from '../helpers/server.js';

/**
 * Pages stay exact while pets are deleted between them: every item that is still there when
 * the walk reaches it is visited exactly once, and one deleted before it was reached never is.
 */
const server = useTestServer();

/** Follows Link from `first` until it is absent; `between` gets the ids seen so far. */
async function walk(first: string, between: (seen: number[]) => Promise<void>) {
  const { items, pages } = await walkLinks<{ id: number }>(server.api, first, (_, next, seen) =>
    next ? between(seen.map((item) => item.id)) : undefined,
  );
  return { ids: items.map((item) => item.id), pages };
}

const deletePet = async (petId: number) => {
  expect((await server.api('DELETE', `/v1/pets/${petId}`)).status).toBe(204);
};

const ascending = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b);

describe('listPets while pets are deleted between pages', () => {
  it.each([
    ['every status', ''],
    ['one status', '&status=sold'],
  ])('visits each remaining pet of %s once and no deleted one', async (_, filter) => {
    const status = filter ? 'sold' : 'available';
    const ids = await insertManyPets(server.database.handle.db, 60, () => status);
    const mine = new Set(ids);
    const deletedAhead = new Set<number>();
    const { ids: visited } = await walk(`/v1/pets?limit=7${filter}`, async (seen) => {
      const behind = seen.filter((id) => mine.has(id));
      const ahead = ids.filter((id) => id > (seen.at(-1) ?? 0) && !deletedAhead.has(id));
      // The pet the cursor points after, one already passed, and the next two not reached.
      const last = behind.at(-1);
      if (last !== undefined) await deletePet(last);
      const passed = behind.at(-3);
      if (passed !== undefined) await deletePet(passed);
      for (const id of ahead.slice(0, 2)) {
        await deletePet(id);
        deletedAhead.add(id);
      }
      mine.delete(last ?? 0);
      mine.delete(passed ?? 0);
    });
    const ours = visited.filter((id) => ids.includes(id));
    expect(new Set(ours).size).toBe(ours.length);
    expect(ours).toEqual(ascending(ids.filter((id) => !deletedAhead.has(id))));
    expect(deletedAhead.size).toBeGreaterThan(10);
  });

  it('reaches the end when every pet after the cursor was deleted', async () => {
    const ids = await insertManyPets(server.database.handle.db, 6, () => 'pending');
    const before = new Set(
      (await server.api<Pet[]>('GET', '/v1/pets?status=pending&limit=100')).body.map(
        (pet) => pet.id,
      ),
    );
    const { ids: visited, pages } = await walk('/v1/pets?status=pending&limit=3', async (seen) => {
      for (const id of ids.filter((each) => each > (seen.at(-1) ?? 0))) await deletePet(id);
    });
    expect(pages).toBe(2);
    expect(visited).toEqual(ascending(before).slice(0, 3));
  });
});

describe('listOrders while the pets of orders are released and deleted between pages', () => {
  it('visits each order still placed once; cancelled ones ahead never', async () => {
    const petIds = await insertManyPets(server.database.handle.db, 30, () => 'available');
    const orders = await runBounded(petIds.length, 4, async (index) => {
      const response = await server.api<Order>('POST', '/v1/store/orders', {
        body: { petId: petIds[index] },
      });
      expect(response.status).toBe(201);
      return response.body;
    });
    const mine = new Map(orders.map((order) => [order.id, order]));
    const cancelledAhead = new Set<number>();
    const release = async (order: Order) => {
      const path = `/v1/store/orders/${order.id}`;
      expect((await server.api('PATCH', path, { body: { status: 'cancelled' } })).status).toBe(200);
      await deletePet(order.petId);
      mine.delete(order.id);
    };
    const { ids: visited } = await walk('/v1/store/orders?status=placed&limit=4', async (seen) => {
      const last = mine.get(seen.at(-1) ?? 0);
      if (last) await release(last);
      const ahead = ascending(mine.keys()).filter((id) => id > (seen.at(-1) ?? 0));
      const next = mine.get(ahead[1] ?? 0);
      if (next) {
        cancelledAhead.add(next.id);
        await release(next);
      }
    });
    const ours = visited.filter((id) => orders.some((order) => order.id === id));
    expect(new Set(ours).size).toBe(ours.length);
    expect(ours).toEqual(
      ascending(orders.map((order) => order.id).filter((id) => !cancelledAhead.has(id))),
    );
    expect(cancelledAhead.size).toBeGreaterThan(3);

    // The orders of deleted pets are still listed, under their new status.
    const cancelled = await server.api<Order[]>(
      'GET',
      '/v1/store/orders?status=cancelled&limit=100',
    );
    expect(cancelled.body.map((order) => order.id)).toEqual(
      ascending(orders.filter((order) => !mine.has(order.id)).map((order) => order.id)),
    );
  });
});
