import { describe, expect, it } from 'vitest';
import { followEvents } from '../helpers/events.js';
import { newPet } from '../helpers/factories.js';
import { startTestServer, TEST_KEY, useTestServer } from '../helpers/server.js';

const ALLOWED = 'https://app.petstore.test';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const server = useTestServer({ corsOrigins: [ALLOWED] });

const bearer = { authorization: `Bearer ${TEST_KEY}` };
const logFor = (requestId: string) => server.logs.filter((line) => line.reqId === requestId);

describe('headers on every response', () => {
  it.each([
    ['/healthz', {}],
    ['/docs', {}],
    ['/v1/openapi.json', {}],
    ['/v1/pets', bearer],
    ['/v1/pets', {}],
    ['/nowhere', {}],
    [`/trpc/pets.list?input=${encodeURIComponent('{}')}`, bearer],
  ])('%s carries nosniff and an X-Request-Id', async (path, headers) => {
    const response = await fetch(`${server.origin}${path}`, { headers });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it.each([['GET', `/trpc/pets.list?batch=1&input=${encodeURIComponent('{"0":{}}')}`]])(
    "%s %s, answered by tRPC's adapter, carries them and no-store too",
    async (method, path) => {
      const response = await fetch(`${server.origin}${path}`, { method, headers: bearer });
      expect(response.status).toBeLessThan(300);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-request-id')).toMatch(UUID);
      expect(response.headers.get('cache-control')).toBe('no-store');
    },
  );

  it.each([
    ['a REST answer', '/v1/pets', bearer],
    ['a refusal', '/v1/pets', {}],
    ['a tRPC answer', `/trpc/pets.list?input=${encodeURIComponent('{}')}`, bearer],
  ])('marks %s for the caller only: Cache-Control: no-store', async (_, path, headers) => {
    const response = await fetch(`${server.origin}${path}`, { headers });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('request log', () => {
  it('writes one JSON line per request: method, route template, status, duration, ids', async () => {
    const created = await server.api<{ id: number }>('POST', '/v1/pets', {
      body: newPet({ name: 'Secret Body Name' }),
      headers: { 'x-request-id': 'create-1' },
    });
    await server.api('GET', `/v1/pets/${created.body.id}`, {
      headers: { 'x-request-id': 'get-1' },
    });

    expect(logFor('create-1')).toEqual([
      expect.objectContaining({ method: 'POST', route: '/pets', status: 201, keyId: 'env-1' }),
    ]);
    const [get] = logFor('get-1');
    expect(get).toMatchObject({ method: 'GET', route: '/pets/{petId}', status: 200 });
    expect(get?.durationMs).toEqual(expect.any(Number));
    expect(get).not.toHaveProperty('aborted');
  });

  it('stamps each line with the moment it was written, in ISO 8601', async () => {
    const before = Date.now();
    await server.api('GET', '/v1/pets', { headers: { 'x-request-id': 'stamped-1' } });
    // Lines at least 5 ms apart, whose stamps must then differ (the timing is the point).
    await new Promise((resolve) => setTimeout(resolve, 5));
    await server.api('GET', '/v1/pets', { headers: { 'x-request-id': 'stamped-2' } });
    const first = String(logFor('stamped-1')[0]?.time);
    const second = String(logFor('stamped-2')[0]?.time);
    expect(first).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(first)).toBeGreaterThanOrEqual(before);
    // The date is formatted once per second: a later line must not reuse an earlier line's stamp.
    expect(Date.parse(second)).toBeGreaterThan(Date.parse(first));
    expect(Date.parse(second)).toBeLessThanOrEqual(Date.now());
  });

  it('names the tRPC procedure as the route of a tRPC call', async () => {
    await fetch(`${server.origin}/trpc/pets.list`, {
      headers: { authorization: `Bearer ${TEST_KEY}`, 'x-request-id': 'trpc-1' },
    });
    expect(logFor('trpc-1')).toEqual([
      expect.objectContaining({ method: 'GET', route: '/trpc/pets.list', status: 200 }),
    ]);
  });

  it('logs a request whose client left before the answer was complete, marked aborted', async () => {
    const follower = await followEvents(server, TEST_KEY, '', {
      headers: { 'x-request-id': 'left-stream-1' },
    });
    expect(logFor('left-stream-1'), 'nothing while the stream is open').toEqual([]);
    follower.close();
    await expect
      .poll(() => logFor('left-stream-1'))
      .toEqual([
        expect.objectContaining({ route: '/events', status: 200, aborted: true, keyId: 'env-1' }),
      ]);
  });

  it('carries the generated request id when the caller sent none', async () => {
    const response = await server.api('GET', '/v1/pets');
    const requestId = response.headers.get('x-request-id') ?? '';
    expect(requestId).toMatch(UUID);
    expect(logFor(requestId)).toHaveLength(1);
  });

  it('never holds a key, right or wrong, nor a request body', async () => {
    await server.api('GET', '/v1/pets', { key: 'not-the-key-but-secret-all-the-same' });
    await server.api('POST', '/v1/pets', { body: newPet({ name: 'Body Only Name' }) });
    const text = JSON.stringify(server.logs);
    expect(text).not.toContain(TEST_KEY);
    expect(text).not.toContain('not-the-key-but-secret-all-the-same');
    expect(text).not.toContain('Body Only Name');
    expect(text).not.toContain('Secret Body Name');
  });

  it('leaves out health and readiness probes', async () => {
    await fetch(`${server.origin}/healthz`, { headers: { 'x-request-id': 'probe-1' } });
    await fetch(`${server.origin}/readyz`, { headers: { 'x-request-id': 'probe-2' } });
    await server.api('GET', '/v1/pets', { headers: { 'x-request-id': 'after-probes' } });
    expect(logFor('after-probes')).toHaveLength(1);
    expect([...logFor('probe-1'), ...logFor('probe-2')]).toEqual([]);
  });
});

describe('CORS', () => {
  it('lets a configured origin read answers and the headers it needs', async () => {
    const response = await server.api('GET', '/v1/pets', { headers: { origin: ALLOWED } });
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const exposed = response.headers.get('access-control-expose-headers') ?? '';
    for (const name of ['Location', 'Link', 'X-Request-Id', 'RateLimit', 'Deprecation', 'Sunset']) {
      expect(exposed).toContain(name);
    }
    expect(response.headers.get('vary')).toContain('Origin');
  });

  it.each([
    ['the lean path', `/trpc/pets.list?input=${encodeURIComponent('{}')}`],
    ['the adapter (a batch)', `/trpc/pets.list?batch=1&input=${encodeURIComponent('{"0":{}}')}`],
  ])(
    'varies a tRPC answer by Origin as well as by the headers tRPC reads, on %s',
    async (_, path) => {
      const response = await fetch(`${server.origin}${path}`, {
        headers: { ...bearer, origin: ALLOWED },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(response.headers.get('vary')).toBe('trpc-accept, accept, Origin');
    },
  );

  it('gives another origin nothing', async () => {
    const response = await server.api('GET', '/v1/pets', {
      headers: { origin: 'https://evil.test' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a preflight from a configured origin without a key', async () => {
    const response = await fetch(`${server.baseUrl}/pets`, {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-request-id')).toMatch(UUID);
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const name of [
      'authorization',
      'content-type',
      'idempotency-key',
      'x-request-id',
      'traceparent',
    ]) {
      expect(allowed).toContain(name);
    }
  });
});

describe('TRUST_PROXY', () => {
  const forwarded = { 'x-forwarded-host': 'api.example.com', 'x-forwarded-proto': 'https' };

  it('ignores forwarded headers by default', async () => {
    const response = await server.api('POST', '/v1/pets', { body: newPet(), headers: forwarded });
    expect(response.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/pets\/\d+$/);
  });

  it('builds links on them behind a trusted proxy', async () => {
    const proxied = await startTestServer({ trustProxy: true });
    try {
      const response = await proxied.api('POST', '/v1/pets', {
        body: newPet(),
        headers: forwarded,
      });
      expect(response.headers.get('location')).toMatch(
        /^https:\/\/api\.example\.com\/v1\/pets\/\d+$/,
      );
    } finally {
      await proxied.close();
    }
  });
});
