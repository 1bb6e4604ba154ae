import { inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { pets } from '../../db/schema.js';
import { followEvents, type StreamedEvent } from '../helpers/events.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const server = useTestServer();

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}
interface Order {
  id: number;
  petId: number;
  status: string;
  placedAt: string;
  updatedAt: string;
}

let sequence = 0;

async function createPet(fields: Partial<Pet> = {}, headers: Record<string, string> = {}) {
  sequence += 1;
  const body = { name: `Event pet ${sequence}`, categoryId: 2, ...fields };
  const response = await server.api<Pet>('POST', '/v1/pets', { body, headers });
  expect(response.status).toBe(201);
  return response.body;
}

async function patchPet(petId: number, patch: Partial<Pet>, expected = 200) {
  const response = await server.api<Pet>('PATCH', `/v1/pets/${petId}`, { body: patch });
  expect(response.status).toBe(expected);
  return response.body;
}

/** Plain fetch: the conformance helper of this branch has no case for a 204 without a body. */
const deletePet = (petId: number) =>
  fetch(`${server.baseUrl}/pets/${petId}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });

async function placeOrder(petId: number) {
  const response = await server.api<Order>('POST', '/v1/store/orders', { body: { petId } });
  expect(response.status).toBe(201);
  return response.body;
}

async function moveOrder(orderId: number, status: string, expected = 200) {
  const response = await server.api<Order>('PATCH', `/v1/store/orders/${orderId}`, {
    body: { status },
  });
  expect(response.status).toBe(expected);
  return response.body;
}

/**
 * The events a stream opened before `change` receives for it: everything before the
 * `pet.created` of a marker pet created once `change` is done. Ids are visible in order, so
 * nothing of `change` can arrive after the marker.
 */
async function eventsOf(change: () => Promise<unknown>): Promise<StreamedEvent[]> {
  const follower = await followEvents(server, TEST_KEY);
  try {
    await change();
    const marker = await createPet({ name: 'Marker' });
    const events = await follower.until('pet.created', marker.id);
    const ids = events.map((event) => BigInt(event.id));
    expect(ids, 'ids ascend').toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
    return events.slice(0, -1);
  } finally {
    follower.close();
  }
}

const summary = (events: StreamedEvent[]) => events.map((event) => [event.type, event.data]);

describe('GET /v1/events: one event per change', () => {
  it('records a create as pet.created with the pet as answered', async () => {
    let pet: Pet | undefined;
    const events = await eventsOf(async () => (pet = await createPet({ status: 'pending' })));
    expect(summary(events)).toEqual([['pet.created', pet]]);
    expect(events[0]?.id).toMatch(/^\d+$/);
    expect(Date.parse(events[0]?.occurredAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });

  it('records an update as pet.updated with the pet after the change', async () => {
    const pet = await createPet();
    let updated: Pet | undefined;
    const events = await eventsOf(async () => (updated = await patchPet(pet.id, { name: 'New' })));
    expect(updated?.name).toBe('New');
    expect(summary(events)).toEqual([['pet.updated', updated]]);
  });

  it('sends pet.created and pet.updated with the pet exactly as the read API shows it', async () => {
    const read = async (petId: number) => {
      const response = await server.api<Pet[]>('GET', `/v1/pets?id=${petId}`);
      expect(response.status).toBe(200);
      return response.body[0];
    };
    const shown: (Pet | undefined)[] = [];
    const events = await eventsOf(async () => {
      const pet = await createPet();
      shown.push(await read(pet.id));
      await patchPet(pet.id, { status: 'pending' });
      shown.push(await read(pet.id));
    });
    expect(summary(events)).toEqual([
      ['pet.created', shown[0]],
      ['pet.updated', shown[1]],
    ]);
  });

  it('records nothing for an update that changes nothing', async () => {
    const pet = await createPet({ status: 'available' });
    const events = await eventsOf(() => patchPet(pet.id, { status: 'available', name: pet.name }));
    expect(events).toEqual([]);
  });

  it('records nothing for a refused update (409) or a failed precondition (412)', async () => {
    const pet = await createPet({ status: 'sold' });
    const events = await eventsOf(async () => {
      await patchPet(pet.id, { status: 'available', name: 'Never' }, 409);
      const stale = await server.api('PATCH', `/v1/pets/${pet.id}`, {
        body: { name: 'Never' },
        headers: { 'if-match': `"${pet.id}.999"` },
      });
      expect(stale.status).toBe(412);
    });
    expect(events).toEqual([]);
  });

  it('records a delete as pet.deleted with only the id', async () => {
    const pet = await createPet();
    const events = await eventsOf(async () => {
      expect((await deletePet(pet.id)).status).toBe(204);
      expect((await deletePet(pet.id)).status).toBe(404);
    });
    expect(summary(events)).toEqual([['pet.deleted', { id: pet.id }]]);
  });

  it('records a placed order as order.placed and the pet going pending as pet.updated', async () => {
    const pet = await createPet();
    let order: Order | undefined;
    const events = await eventsOf(async () => (order = await placeOrder(pet.id)));
    expect(summary(events)).toEqual([
      ['order.placed', order],
      ['pet.updated', { ...pet, status: 'pending' }],
    ]);
  });

  it('records nothing for an order refused because the pet is taken', async () => {
    const pet = await createPet();
    await placeOrder(pet.id);
    const events = await eventsOf(async () => {
      const refused = await server.api('POST', '/v1/store/orders', { body: { petId: pet.id } });
      expect(refused.status).toBe(409);
    });
    expect(events).toEqual([]);
  });

  it('records an approval as order.updated alone: the pet does not change', async () => {
    const order = await placeOrder((await createPet()).id);
    let approved: Order | undefined;
    const events = await eventsOf(async () => {
      approved = await moveOrder(order.id, 'approved');
      await moveOrder(order.id, 'approved');
    });
    expect(summary(events)).toEqual([['order.updated', approved]]);
  });

  it('records delivery and cancellation as order.updated plus the pet sold or available', async () => {
    const sold = await createPet();
    const delivered = await placeOrder(sold.id);
    await moveOrder(delivered.id, 'approved');
    const kept = await createPet();
    const cancelled = await placeOrder(kept.id);
    const answers: Order[] = [];
    const events = await eventsOf(async () => {
      answers.push(await moveOrder(delivered.id, 'delivered'));
      answers.push(await moveOrder(cancelled.id, 'cancelled'));
      await moveOrder(cancelled.id, 'approved', 409);
    });
    expect(summary(events)).toEqual([
      ['order.updated', answers[0]],
      ['pet.updated', { ...sold, status: 'sold' }],
      ['order.updated', answers[1]],
      ['pet.updated', { ...kept, status: 'available' }],
    ]);
  });

  it('records an idempotent create once: the replay records nothing', async () => {
    const headers = { 'idempotency-key': `events-${Date.now()}` };
    let first: Pet | undefined;
    const created = await eventsOf(
      async () => (first = await createPet({ name: 'Once' }, headers)),
    );
    expect(summary(created)).toEqual([['pet.created', first]]);
    const replayed = await eventsOf(async () => {
      const replay = await server.api<Pet>('POST', '/v1/pets', {
        body: { name: 'Once', categoryId: 2 },
        headers,
      });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first);
    });
    expect(replayed).toEqual([]);
  });

  it('records one pet.created per create when many arrive at once', async () => {
    const count = 40;
    let created: Pet[] = [];
    const events = await eventsOf(async () => {
      created = await Promise.all(
        Array.from({ length: count }, (_, i) => createPet({ name: `Concurrent ${i}` })),
      );
    });
    expect(events.map((event) => event.type)).toEqual(Array(count).fill('pet.created'));
    expect(events.map((event) => event.data)).toEqual([...created].sort((a, b) => a.id - b.id));
  });

  it('records one pet.created per create when creates are written in one statement', async () => {
    // A tRPC batch runs its calls at once, so the grouped inserter writes them together.
    const count = 20;
    const path = Array(count).fill('pets.create').join(',');
    const input = Object.fromEntries(
      Array.from({ length: count }, (_, i) => [i, { name: `Grouped ${i}`, categoryId: 4 }]),
    );
    let created: Pet[] = [];
    const events = await eventsOf(async () => {
      const answer = await server.trpc<{ result: { data: Pet } }[]>(
        `${path}?batch=1`,
        input,
        'mutation',
      );
      created = answer.body.map((call) => call.result.data);
    });
    expect(events.map((event) => event.data)).toEqual([...created].sort((a, b) => a.id - b.id));
    const transactions = await server.database.handle.db
      .selectDistinct({ xmin: sql<string>`xmin::text` })
      .from(pets)
      .where(
        inArray(
          pets.id,
          created.map((pet) => pet.id),
        ),
      );
    expect(transactions.length, 'statements that wrote them').toBeLessThan(count);
  });
});
