import { describe, expect, it } from 'vitest';
import type { EventBody } from '../../server/domain/schemas/event.js';
import type { Order } from '../../server/domain/schemas/order.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { newPet } from '../helpers/factories.js';
import { nextLink, walkCursors, walkLinks } from '../helpers/pages.js';
import { useTestServer } from '../helpers/server.js';

/** listPetHistory over REST and pets.history over tRPC, on pets changed through the API. */
const server = useTestServer();

async function createPet(): Promise<Pet> {
  const response = await server.api<Pet>('POST', '/v1/pets', { body: newPet() });
  expect(response.status).toBe(201);
  return response.body;
}

/** A pet renamed `renames` times: its history is those updates, newest first, then its create. */
async function changedPet(renames: number): Promise<Pet> {
  const pet = await createPet();
  for (let round = 1; round <= renames; round++) {
    const path = `/v1/pets/${pet.id}`;
    const renamed = await server.api('PATCH', path, { body: { name: `Renamed ${round}` } });
    expect(renamed.status).toBe(200);
  }
  return pet;
}

const history = (petId: number, query = '') =>
  server.api<EventBody[]>('GET', `/v1/pets/${petId}/history${query}`);

describe('GET /v1/pets/{petId}/history', () => {
  it("lists the pet's events newest first, paged by Link, each once", async () => {
    const pet = await changedPet(4);
    await changedPet(1);
    const { items, pages } = await walkLinks<EventBody>(
      server.api,
      `/v1/pets/${pet.id}/history?limit=2`,
      (_page, next) => {
        if (!next) return;
        expect(`${next.origin}${next.pathname}`).toBe(`${server.baseUrl}/pets/${pet.id}/history`);
        expect(next.search).toMatch(/^\?limit=2&cursor=[A-Za-z0-9_.-]+$/);
      },
    );
    expect(pages).toBe(3);
    expect(items.map((event) => event.type)).toEqual([
      ...Array<string>(4).fill('pet.updated'),
      'pet.created',
    ]);
    for (const event of items) expect(event.data).toMatchObject({ id: pet.id });
    const ids = items.map((event) => Number(event.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(items[0]?.data).toMatchObject({ name: 'Renamed 4' });
  });

  it("lists a pet's status changes made by its orders, and no order event", async () => {
    const pet = await createPet();
    const order = await server.api<Order>('POST', '/v1/store/orders', { body: { petId: pet.id } });
    expect(order.status).toBe(201);
    const { body } = await history(pet.id);
    expect(body.map((event) => [event.type, event.data])).toEqual([
      ['pet.updated', { ...pet, status: 'pending' }],
      ['pet.created', pet],
    ]);
  });

  it("still lists a deleted pet's history, its deletion first", async () => {
    const pet = await changedPet(1);
    expect((await server.api('DELETE', `/v1/pets/${pet.id}`)).status).toBe(204);
    const { status, body } = await history(pet.id);
    expect(status).toBe(200);
    expect(body.map((event) => event.type)).toEqual(['pet.deleted', 'pet.updated', 'pet.created']);
  });

  it('is 404 for a pet that never existed', async () => {
    const response = await history(9_000_000);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it.each([['/v1/pets/0/history'], ['/v1/pets/1/history?limit=0'], ['/v1/pets/1/history?type=x']])(
    'refuses %s with 400',
    async (path) => {
      expect((await server.api('GET', path)).status).toBe(400);
    },
  );

  it("refuses a cursor issued for another pet's history, naming cursor", async () => {
    const pet = await changedPet(2);
    const other = await changedPet(2);
    const first = await history(pet.id, '?limit=1');
    const cursor = nextLink(first.headers)?.searchParams.get('cursor') ?? '';
    const refused = await server.api<{ issues: { path: string }[] }>(
      'GET',
      `/v1/pets/${other.id}/history?limit=1&cursor=${cursor}`,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.issues.map((issue) => issue.path)).toEqual(['cursor']);
    expect((await history(pet.id, `?limit=1&cursor=${cursor}`)).status).toBe(200);
  });
});

describe('pets.history and pets.historyPage over tRPC', () => {
  it('give the same events as REST, the page form with nextCursor', async () => {
    const pet = await changedPet(3);
    const rest = (await history(pet.id)).body;
    const listed = await server.trpc<{ result: { data: EventBody[] } }>(
      'pets.history',
      { petId: pet.id },
      'query',
    );
    expect(listed.body.result.data).toEqual(rest);
    const { items, pages } = await walkCursors(async (cursor) => {
      const response = await server.trpc<{
        result: { data: { items: EventBody[]; nextCursor: string | null } };
      }>('pets.historyPage', { petId: pet.id, limit: 3, cursor }, 'query');
      expect(response.status).toBe(200);
      return response.body.result.data;
    });
    expect(items).toEqual(rest);
    expect(pages).toBe(2);
  });
});
