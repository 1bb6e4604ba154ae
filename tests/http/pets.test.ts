import { describe, expect, it } from 'vitest';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { newPet } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

describe('POST /v1/pets', () => {
  it('returns 201 with the created pet and its Location', async () => {
    const response = await server.api<Pet>('POST', '/v1/pets', {
      body: { name: 'Rex', categoryId: 7 },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.any(Number) as number,
      name: 'Rex',
      categoryId: 7,
      status: 'available',
    });
    const location = response.headers.get('location');
    expect(location).toBe(`${server.baseUrl}/pets/${response.body.id}`);
    const fetched = await server.api<Pet>('GET', new URL(location ?? '').pathname);
    expect(fetched.body).toEqual(response.body);
  });

  it('accepts a charset parameter on the content type', async () => {
    const response = await server.api('POST', '/v1/pets', {
      body: newPet(),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(201);
  });
});

describe('GET /v1/pets', () => {
  it('returns a bare array in id order, filtered by status, at most limit', async () => {
    for (const status of ['sold', 'pending', 'sold'] as const) {
      await server.api('POST', '/v1/pets', { body: newPet({ status }) });
    }
    const sold = await server.api<Pet[]>('GET', '/v1/pets?status=sold&limit=100');
    expect(sold.status).toBe(200);
    expect(Array.isArray(sold.body)).toBe(true);
    expect(sold.body.length).toBeGreaterThanOrEqual(2);
    expect(sold.body.every((pet) => pet.status === 'sold')).toBe(true);
    const ids = sold.body.map((pet) => pet.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const one = await server.api<Pet[]>('GET', '/v1/pets?limit=1');
    expect(one.body).toHaveLength(1);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['status=lost', 'status'],
    ['colour=brown', 'colour'],
  ])('answers ?%s with 400 naming %s', async (query, field) => {
    const response = await server.api<{ issues: { path: string }[] }>('GET', `/v1/pets?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.issues.map((issue) => issue.path)).toContain(field);
  });
});

describe('GET /v1/pets/{petId}', () => {
  it('returns the pet with Deprecation, Sunset and Link headers', async () => {
    const created = await server.api<Pet>('POST', '/v1/pets', { body: newPet() });
    const response = await server.api<Pet>('GET', `/v1/pets/${created.body.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(created.body);
    expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(response.headers.get('link')).toBe(`<${server.origin}/docs>; rel="deprecation"`);
  });

  it('answers an unknown id with 404, still deprecated', async () => {
    const response = await server.api<{ message: string }>('GET', '/v1/pets/9007199254740991');
    expect(response.status).toBe(404);
    expect(response.body.message).toBe('No pet with id 9007199254740991');
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it('stays deprecated when it refuses the caller before routing (401)', async () => {
    const response = await server.api('GET', '/v1/pets/1', { key: 'not-a-key' });
    expect(response.status).toBe(401);
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it.each(['abc', '0', '-4', '1.5', '9007199254740992', '%ZZ'])(
    'answers petId %s with 400',
    async (petId) => {
      const response = await server.api('GET', `/v1/pets/${petId}`);
      expect(response.status).toBe(400);
    },
  );
});
