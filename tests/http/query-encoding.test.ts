import { describe, expect, it } from 'vitest';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { newPet } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';

/**
 * A query is percent-encoded UTF-8. Bytes that are not UTF-8, or a `%` not followed by two hex
 * digits, are a caller's mistake: 400, never a filter on U+FFFD or on the escape as text.
 */
const server = useTestServer();

const ENCODING = /not percent-encoded UTF-8/;
const BAD_ESCAPES = ['p%FFl', 'p%C3l', '%ED%A0%80abc', 'p%zzl', 'abc%', 'abc%4'];

describe('query strings that are not percent-encoded UTF-8', () => {
  it.each(BAD_ESCAPES)('GET /v1/pets?name=%s is 400 naming the query', async (value) => {
    const response = await server.api<{ code: string; message: string }>(
      'GET',
      `/v1/pets?name=${value}`,
    );
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('BAD_REQUEST');
    expect(response.body.message).toMatch(ENCODING);
  });

  it.each(['/v1/pets?n%FFme=rex', '/v1/store/orders?status=p%FF', '/v1/events?types=pet.c%FF'])(
    'refuses %s as such: names and every operation alike',
    async (path) => {
      const response = await server.api<{ message: string }>('GET', path);
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(ENCODING);
    },
  );

  it('still reads well-formed escapes and + as a space', async () => {
    const created = await server.api<Pet>('POST', '/v1/pets', {
      body: newPet({ name: 'Zoë the query cat' }),
    });
    expect(created.status).toBe(201);
    const found = await server.api<Pet[]>('GET', '/v1/pets?name=zo%C3%AB+the+query');
    expect(found.status).toBe(200);
    expect(found.body.map((pet) => pet.id)).toEqual([created.body.id]);
  });

  it('answers a /trpc call whose input is not UTF-8 with 400 as well', async () => {
    const input = encodeURIComponent(JSON.stringify({ name: 'pXl' })).replace('X', '%FF');
    const response = await server.api<{ error: { message: string } }>(
      'GET',
      `/trpc/pets.list?input=${input}`,
    );
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(ENCODING);
  });
});
