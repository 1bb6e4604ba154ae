import { count } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { idempotencyKeys, pets } from '../../db/schema.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';
import { sendOnWire } from '../helpers/wire.js';

const OTHER_KEY = 'test-key-singleton-other';
const server = useTestServer({ apiKeys: [TEST_KEY, OTHER_KEY] });

const auth: [string, string] = ['Authorization', `Bearer ${TEST_KEY}`];
const json: [string, string] = ['Content-Type', 'application/json'];
const pet = (name: string) => JSON.stringify({ name, categoryId: 1 });

function send(target: string, headers: [string, string][], body?: string) {
  const method = body === undefined ? 'GET' : 'POST';
  return sendOnWire(server.origin, server.conformance, { method, target, headers, body });
}

async function rowCount(table: typeof pets | typeof idempotencyKeys): Promise<number> {
  const rows = await server.database.handle.db.select({ n: count() }).from(table);
  return rows[0]?.n ?? 0;
}

function messageOf(body: unknown): string | undefined {
  const answer = body as { message?: string; error?: { message: string } };
  return answer.error?.message ?? answer.message;
}

/**
 * Fields a request may carry once (RFC 9110 §5.3): node keeps the first of two Host or
 * Authorization lines and joins two Idempotency-Key lines, so a proxy reading the last line
 * would act on another request than ours.
 */
describe('a header the request may carry once, sent twice', () => {
  it('refuses two Host headers with 400 naming Host, before links are built on either', async () => {
    const before = await rowCount(pets);
    const response = await send(
      '/v1/pets',
      [['Host', 'a.example'], ['Host', 'b.example'], auth, json],
      pet('two hosts'),
    );
    expect(response.status).toBe(400);
    expect(messageOf(response.body)).toBe('The request carries more than one Host header');
    expect(response.headers.get('location')).toBeNull();
    expect(await rowCount(pets)).toBe(before);
  });

  it('refuses two Host headers on the public routes too', async () => {
    const response = await sendOnWire(server.origin, server.conformance, {
      target: '/v1/pets',
      headers: [
        ['Host', 'a.example'],
        ['host', 'a.example'],
      ],
    });
    expect(response.status).toBe(400);
  });

  it.each([
    ['two different keys', [auth, ['Authorization', `Bearer ${OTHER_KEY}`]]],
    ['the same key twice', [auth, auth]],
    ['a key and a bad one', [['Authorization', 'Bearer nope'], auth]],
  ] as [string, [string, string][]][])(
    'refuses %s in Authorization with 401 and a challenge, naming the header',
    async (_, headers) => {
      const response = await send('/v1/pets', headers);
      expect(response.status).toBe(401);
      expect(messageOf(response.body)).toBe(
        'The request carries more than one Authorization header',
      );
      expect(response.headers.get('www-authenticate')).toBe(
        'Bearer realm="petstore", error="invalid_request"',
      );
      expect(response.headers.get('ratelimit')).toBeNull();
    },
  );

  it('refuses two Authorization headers on tRPC in its envelope', async () => {
    const response = await send('/trpc/pets.list', [auth, auth]);
    expect(response.status).toBe(401);
    expect(messageOf(response.body)).toBe('The request carries more than one Authorization header');
  });

  it('keeps the deprecated route saying so on that 401 too', async () => {
    const response = await send('/v1/pets/1', [auth, auth]);
    expect(response.status).toBe(401);
    expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
  });

  it('refuses two Idempotency-Key headers with 400 naming it, storing no key "a, b"', async () => {
    const before = { pets: await rowCount(pets), keys: await rowCount(idempotencyKeys) };
    const response = await send(
      '/v1/pets',
      [auth, json, ['Idempotency-Key', 'a'], ['Idempotency-Key', 'b']],
      pet('two keys'),
    );
    expect(response.status).toBe(400);
    expect(messageOf(response.body)).toBe(
      'The request carries more than one Idempotency-Key header',
    );
    expect({ pets: await rowCount(pets), keys: await rowCount(idempotencyKeys) }).toEqual(before);
  });

  it('refuses two Idempotency-Key headers on tRPC too', async () => {
    const response = await send(
      '/trpc/pets.create',
      [auth, json, ['Idempotency-Key', 'a'], ['Idempotency-Key', 'b']],
      pet('two keys'),
    );
    expect(response.status).toBe(400);
  });

  it('refuses two Content-Type headers with 400 naming it', async () => {
    const response = await send(
      '/v1/pets',
      [auth, json, ['Content-Type', 'text/plain']],
      pet('two types'),
    );
    expect(response.status).toBe(400);
    expect(messageOf(response.body)).toBe('The request carries more than one Content-Type header');
  });

  it('answers a repeated header without a valid key with 401 first', async () => {
    const response = await send(
      '/v1/pets',
      [json, ['Idempotency-Key', 'a'], ['Idempotency-Key', 'b']],
      pet('anonymous'),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
  });

  it('takes each of them once, so the refusals above mean something', async () => {
    const response = await send(
      '/v1/pets',
      [auth, json, ['Idempotency-Key', 'once']],
      pet('singletons once'),
    );
    expect(response.status).toBe(201);
  });
});
