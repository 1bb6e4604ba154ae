import { describe, expect, it } from 'vitest';
import { TEST_KEY, useTestServer } from '../helpers/server.js';
import { sendOnWire } from '../helpers/wire.js';

const server = useTestServer();

const auth: [string, string] = ['Authorization', `Bearer ${TEST_KEY}`];

const send = (target: string, method = 'GET') =>
  sendOnWire(server.origin, server.conformance, { method, target, headers: [auth] });

/**
 * Paths are matched as sent, never normalised: a proxy in front that allows only `/trpc/*`
 * (or only `/healthz`) must not be walked around by a path that a URL parser would turn into
 * another route. None of these may reach the route it resembles.
 */
describe('request targets that a URL parser would turn into another route', () => {
  it.each([
    ['an authority-like double slash', '//evil.example/v1/pets'],
    ['a double slash before a public route', '//x/healthz'],
    ['dot segments under /trpc', '/trpc/../v1/pets'],
    ['encoded dot segments', '/%2e%2e/v1/pets'],
    ['upper-case encoded dot segments', '/%2E%2E/v1/pets'],
    ['a single dot segment', '/v1/./pets'],
    ['dot segments inside /v1', '/v1/x/../pets'],
    ['an empty segment', '/v1//pets'],
    ['a trailing slash', '/v1/pets/'],
    ['a trailing slash on a public route', '/healthz/'],
    ['a different case', '/V1/pets'],
    ['an encoded slash', '/v1%2Fpets'],
    ['a backslash', '/v1\\pets'],
    ['dot segments after a public route', '/healthz/../v1/pets'],
    ['a double slash before /trpc', '//trpc/pets.list'],
    ['dot segments inside /trpc', '/trpc/pets.get/../pets.list'],
    ['encoded dot segments inside /trpc', '/trpc/%2e%2e/v1/pets'],
    ['encoded slashes inside /trpc', '/trpc/..%2Fv1%2Fpets'],
  ])('answers %s (%s) with 404, never the other route', async (_, target) => {
    const response = await send(target);
    expect(response.status).toBe(404);
    expect(Array.isArray(response.body)).toBe(false);
  });

  it('answers dot segments in place of a pet id with 400, never the list', async () => {
    for (const target of ['/v1/pets/%2e%2e', '/v1/pets/..', '/v1/pets/.']) {
      const response = await send(target);
      expect(response.status, target).toBe(400);
      expect(Array.isArray(response.body), target).toBe(false);
    }
  });

  it('answers the same targets without a key with 401 or 404, never 200', async () => {
    for (const target of ['//evil.example/v1/pets', '/trpc/../v1/pets', '/v1//pets']) {
      const response = await sendOnWire(server.origin, server.conformance, { target });
      expect([401, 404], target).toContain(response.status);
    }
  });

  it('serves the routes themselves, so the refusals above mean something', async () => {
    expect((await send('/v1/pets')).status).toBe(200);
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
    expect((await send('/trpc/pets.list')).status).toBe(200);
  });
});

describe('absolute-form targets (RFC 9112 §3.2.2)', () => {
  it('serves the path the target names', async () => {
    const response = await send(`${server.origin}/v1/pets?limit=1`);
    expect(response.status).toBe(200);
  });

  it.each([
    ['an empty path segment', '//v1/pets'],
    ['dot segments', '/trpc/../v1/pets'],
    ['an authority-like path', '//evil.example/v1/pets'],
  ])('matches its path as sent too: %s is 404', async (_, path) => {
    const response = await send(`http://evil.example${path}`);
    expect(response.status).toBe(404);
  });

  it('builds links on the authority the target names, not on Host', async () => {
    const created = await sendOnWire(server.origin, server.conformance, {
      method: 'POST',
      target: 'http://api.example.test:8080/v1/pets',
      headers: [auth, ['Host', 'other.example'], ['Content-Type', 'application/json']],
      body: JSON.stringify({ name: 'Absolute', categoryId: 1 }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toMatch(
      /^http:\/\/api\.example\.test:8080\/v1\/pets\/\d+$/,
    );
  });
});
