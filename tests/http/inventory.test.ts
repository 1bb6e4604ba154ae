import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../server/domain/schemas/inventory.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { newPet } from '../helpers/factories.js';
import { walkLinks } from '../helpers/pages.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

async function inventory() {
  const response = await server.api<Inventory>('GET', '/v1/store/inventory');
  expect(response.status).toBe(200);
  return { body: response.body, etag: response.headers.get('etag') ?? '' };
}

/** Counts by status of every pet a full walk of listPets finds. */
async function walkedCounts(): Promise<Inventory> {
  const counts = { available: 0, pending: 0, sold: 0 };
  const { items } = await walkLinks<Pet>(server.api, '/v1/pets?limit=100');
  for (const pet of items) counts[pet.status] += 1;
  return counts;
}

describe('GET /v1/store/inventory', () => {
  it('counts what a full walk of the pets finds, every status present', async () => {
    for (const status of ['available', 'sold', 'sold', 'pending'] as const) {
      expect((await server.api('POST', '/v1/pets', { body: newPet({ status }) })).status).toBe(201);
    }
    const { body } = await inventory();
    expect(Object.keys(body).sort()).toEqual(['available', 'pending', 'sold']);
    expect(body).toEqual(await walkedCounts());
  });

  it('has a strong ETag that answers If-None-Match with 304 until a count changes', async () => {
    const first = await inventory();
    expect(first.etag).toMatch(/^"[^"]+"$/);
    const again = await server.api('GET', '/v1/store/inventory', {
      headers: { 'if-none-match': first.etag },
    });
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect(again.headers.get('etag')).toBe(first.etag);

    const created = await server.api<Pet>('POST', '/v1/pets', { body: newPet() });
    const changed = await server.api<Inventory>('GET', '/v1/store/inventory', {
      headers: { 'if-none-match': first.etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.available).toBe(first.body.available + 1);
    expect(changed.headers.get('etag')).not.toBe(first.etag);

    // A rename moves no pet between statuses: the counts, and so the ETag, stay.
    const renamed = await server.api('PATCH', `/v1/pets/${created.body.id}`, {
      body: { name: 'Renamed' },
    });
    expect(renamed.status).toBe(200);
    expect((await inventory()).etag).toBe(changed.headers.get('etag'));
  });

  it('answers the same on tRPC as on REST', async () => {
    const rest = await inventory();
    const trpc = await server.trpc<{ result: { data: Inventory } }>(
      'store.inventory',
      undefined,
      'query',
    );
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data).toEqual(rest.body);
  });

  it('refuses query parameters with 400', async () => {
    const response = await server.api<{ status: number }>('GET', '/v1/store/inventory?status=sold');
    expect(response.status).toBe(400);
    expect(response.body.status).toBe(400);
  });

  it('needs an API key', async () => {
    const response = await server.api('GET', '/v1/store/inventory', { key: null });
    expect(response.status).toBe(401);
  });
});
