import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderStatus } from '../../db/queries/orders.js';
import { findPet } from '../../db/queries/pets.js';
import { callerFor, rejection } from '../helpers/caller.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { newPet, reader, writer } from '../helpers/factories.js';
import { walkCursors } from '../helpers/pages.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const store = (idempotencyKey?: string) =>
  callerFor({ db: database.handle.db, principal: writer, idempotencyKey });

async function orderedPet() {
  const pet = await store().caller.pets.create(newPet());
  const order = await store().caller.orders.place({ petId: pet.id });
  return { pet, order };
}

const petStatus = async (petId: number) => (await findPet(database.handle.db, petId))?.status;

describe('orders.place', () => {
  it('reserves an available pet: the order is placed, the pet pending, Location set', async () => {
    const pet = await store().caller.pets.create(newPet());
    const { caller, ctx } = store();
    const order = await caller.orders.place({ petId: pet.id });
    expect(order).toEqual({
      id: expect.any(Number) as number,
      petId: pet.id,
      status: 'placed',
      placedAt: expect.stringMatching(/Z$/) as string,
      updatedAt: order.placedAt,
    });
    expect(ctx.responseHeaders.location).toBe(`http://pets.test/v1/store/orders/${order.id}`);
    expect(await petStatus(pet.id)).toBe('pending');
  });

  it('refuses a pet that is not available with 409, and one that does not exist with 422', async () => {
    const { pet } = await orderedPet();
    const taken = await rejection(store().caller.orders.place({ petId: pet.id }));
    expect(taken.code).toBe('CONFLICT');
    expect(taken.message).toBe(`Pet ${pet.id} is pending, not available`);
    const sold = await store().caller.pets.create(newPet({ status: 'sold' }));
    expect((await rejection(store().caller.orders.place({ petId: sold.id }))).code).toBe(
      'CONFLICT',
    );
    expect((await rejection(store().caller.orders.place({ petId: 9e6 }))).code).toBe(
      'UNPROCESSABLE_CONTENT',
    );
    const deleted = await store().caller.pets.create(newPet());
    await store().caller.pets.delete({ petId: deleted.id });
    expect((await rejection(store().caller.orders.place({ petId: deleted.id }))).code).toBe(
      'UNPROCESSABLE_CONTENT',
    );
  });

  it('replays a placed order for the same Idempotency-Key, after the order moved on too', async () => {
    const pet = await store().caller.pets.create(newPet());
    const first = await store('order-once').caller.orders.place({ petId: pet.id });
    await store().caller.orders.update({ orderId: first.id, status: 'cancelled' });
    const again = store('order-once');
    await expect(again.caller.orders.place({ petId: pet.id })).resolves.toEqual(first);
    expect(again.ctx.responseHeaders['idempotent-replayed']).toBe('true');
    expect(await petStatus(pet.id)).toBe('available');
  });

  it('needs the write scope', async () => {
    const pet = await store().caller.pets.create(newPet());
    const caller = callerFor({ db: database.handle.db, principal: reader }).caller;
    expect((await rejection(caller.orders.place({ petId: pet.id }))).code).toBe('FORBIDDEN');
  });
});

describe('orders.update', () => {
  const ALLOWED: [OrderStatus[], string][] = [
    [['approved', 'delivered'], 'sold'],
    [['approved', 'cancelled'], 'available'],
    [['cancelled'], 'available'],
    [['approved'], 'pending'],
  ];

  it.each(ALLOWED)('moves an order through %j, leaving its pet %s', async (steps, status) => {
    const { pet, order } = await orderedPet();
    for (const step of steps) {
      await expect(
        store().caller.orders.update({ orderId: order.id, status: step }),
      ).resolves.toMatchObject({ id: order.id, status: step });
    }
    expect(await petStatus(pet.id)).toBe(status);
  });

  it.each([
    [['approved', 'placed'], 'approved', 'placed'],
    [['delivered'], 'placed', 'delivered'],
    [['cancelled', 'approved'], 'cancelled', 'approved'],
    [['approved', 'delivered', 'cancelled'], 'delivered', 'cancelled'],
  ] as [OrderStatus[], OrderStatus, OrderStatus][])(
    'refuses the last of %j with 409 from %s to %s',
    async (steps, from, to) => {
      const { order } = await orderedPet();
      for (const step of steps.slice(0, -1)) {
        await store().caller.orders.update({ orderId: order.id, status: step });
      }
      const error = await rejection(
        store().caller.orders.update({ orderId: order.id, status: to }),
      );
      expect(error.code).toBe('CONFLICT');
      expect(error.message).toContain(`from ${from} to ${to}`);
    },
  );

  it('treats the current status as no change', async () => {
    const { order } = await orderedPet();
    await expect(
      store().caller.orders.update({ orderId: order.id, status: 'placed' }),
    ).resolves.toEqual(order);
  });

  it('answers 404 for an unknown order', async () => {
    expect(
      (await rejection(store().caller.orders.update({ orderId: 9e6, status: 'approved' }))).code,
    ).toBe('NOT_FOUND');
    expect((await rejection(store().caller.orders.get({ orderId: 9e6 }))).code).toBe('NOT_FOUND');
  });
});

describe('orders.list and orders.listPage', () => {
  it('pages every order exactly once in id order, filtered by status and pet', async () => {
    const placed = [];
    for (let i = 0; i < 5; i++) placed.push((await orderedPet()).order);
    const cancelled = placed.slice(0, 2);
    for (const order of cancelled) {
      await store().caller.orders.update({ orderId: order.id, status: 'cancelled' });
    }
    const { items } = await walkCursors((cursor) =>
      store().caller.orders.listPage({ limit: 2, status: 'cancelled', cursor }),
    );
    expect(items.every((order) => order.status === 'cancelled')).toBe(true);
    const seen = items.map((order) => order.id);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen).toEqual(expect.arrayContaining(cancelled.map((order) => order.id)));
    expect(new Set(seen).size).toBe(seen.length);
    const [first] = placed;
    const forPet = await store().caller.orders.list({ petId: first?.petId });
    expect(forPet.map((order) => order.id)).toEqual([first?.id]);
  });

  it('refuses a cursor issued for other filters', async () => {
    for (let i = 0; i < 2; i++) await orderedPet();
    const { nextCursor } = await store().caller.orders.listPage({ limit: 1 });
    const error = await rejection(
      store().caller.orders.list({ limit: 1, status: 'placed', cursor: nextCursor ?? '' }),
    );
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toBe(
      'Invalid cursor: was issued for no filter; this request has status=placed',
    );
  });
});
