import createClient from 'openapi-fetch';
import { beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../client/generated/openapi.js';
import { checkedFetch } from '../helpers/http.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const server = useTestServer();
let client: ReturnType<typeof createClient<paths>>;

beforeAll(() => {
  client = createClient<paths>({
    baseUrl: server.baseUrl,
    headers: { authorization: `Bearer ${TEST_KEY}` },
    fetch: checkedFetch(server.conformance),
  });
});

/** An external REST client that knows the service only from its OpenAPI document. */
describe('a client generated from openapi.json', () => {
  it('creates, lists and gets a pet', async () => {
    const created = await client.POST('/pets', {
      body: { name: 'Biscuit', categoryId: 4, status: 'pending' },
    });
    expect(created.response.status).toBe(201);
    const pet = created.data;
    expect(pet).toMatchObject({ name: 'Biscuit', categoryId: 4, status: 'pending' });
    if (!pet) throw new Error('no pet in the 201 body');

    const listed = await client.GET('/pets', {
      params: { query: { status: 'pending', limit: 100 } },
    });
    expect(listed.data?.map((each) => each.id)).toContain(pet.id);

    const fetched = await client.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
    expect(fetched.data).toEqual(pet);
  });

  it('receives documented Error bodies', async () => {
    const missing = await client.GET('/pets/{petId}', { params: { path: { petId: 424242 } } });
    expect(missing.error).toEqual({
      code: 'NOT_FOUND',
      message: 'No pet with id 424242',
      status: 404,
    });

    const invalid = await client.POST('/pets', { body: { name: '', categoryId: 1 } });
    expect(invalid.error?.status).toBe(400);
    expect(invalid.error?.issues?.[0]?.path).toBe('name');
  });
});

describe('the generated client on the store operations', () => {
  it('changes a pet with the ETag it read, then deletes it', async () => {
    const created = await client.POST('/pets', { body: { name: 'Mochi', categoryId: 2 } });
    const petId = created.data?.id ?? 0;
    const etag = created.response.headers.get('etag') ?? '';

    const patched = await client.PATCH('/pets/{petId}', {
      params: { path: { petId }, header: { 'If-Match': etag } },
      body: { name: 'Mochi II', status: 'pending' },
    });
    expect(patched.data).toEqual({ id: petId, name: 'Mochi II', categoryId: 2, status: 'pending' });
    expect(patched.response.headers.get('etag')).not.toBe(etag);

    const stale = await client.PATCH('/pets/{petId}', {
      params: { path: { petId }, header: { 'If-Match': etag } },
      body: { status: 'sold' },
    });
    expect(stale.response.status).toBe(412);
    expect(stale.error?.code).toBe('PRECONDITION_FAILED');

    const invalid = await client.PATCH('/pets/{petId}', {
      params: { path: { petId } },
      // @ts-expect-error a status outside PetStatus does not compile
      body: { status: 'lost' },
    });
    expect(invalid.error?.issues?.[0]?.path).toBe('status');

    const deleted = await client.DELETE('/pets/{petId}', { params: { path: { petId } } });
    expect(deleted.response.status).toBe(204);
    expect(deleted.data).toBeUndefined();
    const gone = await client.DELETE('/pets/{petId}', { params: { path: { petId } } });
    expect(gone.error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('places, finds, lists and delivers an order, and reads a refused one as an Error', async () => {
    const pet = await client.POST('/pets', { body: { name: 'Pickles', categoryId: 1 } });
    const petId = pet.data?.id ?? 0;
    const placed = await client.POST('/store/orders', { body: { petId } });
    expect(placed.response.status).toBe(201);
    const order = placed.data;
    if (!order) throw new Error('no order in the 201 body');
    expect(order).toMatchObject({ petId, status: 'placed' });

    const again = await client.POST('/store/orders', { body: { petId } });
    expect(again.error).toMatchObject({ code: 'CONFLICT', status: 409 });

    const found = await client.GET('/store/orders/{orderId}', {
      params: { path: { orderId: order.id } },
    });
    expect(found.data).toEqual(order);
    const listed = await client.GET('/store/orders', { params: { query: { petId, limit: 5 } } });
    expect(listed.data).toEqual([order]);

    for (const status of ['approved', 'delivered'] as const) {
      const moved = await client.PATCH('/store/orders/{orderId}', {
        params: { path: { orderId: order.id } },
        body: { status },
      });
      expect(moved.data?.status).toBe(status);
    }
    const sold = await client.GET('/pets/{petId}', { params: { path: { petId } } });
    expect(sold.data?.status).toBe('sold');
    const refused = await client.PATCH('/store/orders/{orderId}', {
      params: { path: { orderId: order.id } },
      body: { status: 'cancelled' },
    });
    expect(refused.error?.message).toMatch(/delivered.*cancelled/);
  });
});
