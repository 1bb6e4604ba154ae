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
