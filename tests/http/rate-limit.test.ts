import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations as registry } from '../../server/operations/registry.js';
import { startTestServer, TEST_KEY, type TestServer, useTestServer } from '../helpers/server.js';

const OTHER_KEY = 'test-key-other';
const LIMIT = 3;

const server = useTestServer({
  apiKeys: [TEST_KEY, OTHER_KEY],
  rateLimit: { limit: LIMIT, windowSeconds: 60 },
});

describe('per-key rate limits', () => {
  it('answers the request after the quota with 429, Retry-After and the RateLimit fields', async () => {
    for (let remaining = LIMIT - 1; remaining >= 0; remaining--) {
      const response = await server.api('GET', '/v1/pets');
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe(`"default";q=${LIMIT};w=60`);
      expect(response.headers.get('ratelimit')).toMatch(
        new RegExp(`^"default";r=${remaining};t=\\d+$`),
      );
    }

    const refused = await server.api('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      code: 'TOO_MANY_REQUESTS',
      message: expect.stringMatching(/^Rate limit of 3 requests per 60 s exceeded/) as string,
      status: 429,
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit')).toBe(`"default";r=0;t=${retryAfter}`);
    expect(refused.headers.get('ratelimit-policy')).toBe(`"default";q=${LIMIT};w=60`);
  });

  it('spends the same budget on the tRPC surface and refuses it there in its envelope', async () => {
    const response = await server.trpc('pets.list', {}, 'query', { key: TEST_KEY });
    expect(response.status).toBe(429);
    expect(response.body).toMatchObject({ error: { data: { code: 'TOO_MANY_REQUESTS' } } });
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(response.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
  });

  it('leaves another key its own budget, on both surfaces', async () => {
    const rest = await server.api('GET', '/v1/pets', { key: OTHER_KEY });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('ratelimit')).toMatch(/^"default";r=2;t=\d+$/);
    const trpc = await server.trpc('pets.list', {}, 'query', { key: OTHER_KEY });
    expect(trpc.status).toBe(200);
    expect(trpc.headers.get('ratelimit')).toMatch(/^"default";r=1;t=\d+$/);
    expect(trpc.headers.get('ratelimit-policy')).toBe(`"default";q=${LIMIT};w=60`);
  });

  it('does not limit the public endpoints, nor count them', async () => {
    for (const path of ['/healthz', '/readyz', '/v1/openapi.json', '/healthz', '/readyz']) {
      const response = await fetch(`${server.origin}${path}`, {
        headers: { authorization: `Bearer ${TEST_KEY}` },
      });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('ratelimit'), path).toBeNull();
    }
  });

  it('does not count unauthenticated requests against any key', async () => {
    const response = await server.api('GET', '/v1/pets', { key: null });
    expect(response.status).toBe(401);
    expect(response.headers.get('ratelimit')).toBeNull();
  });
});

describe('RATE_LIMIT=off', () => {
  let unlimited: TestServer;
  beforeAll(async () => {
    unlimited = await startTestServer({ rateLimit: 'off' });
  });
  afterAll(() => unlimited.close());

  it('sends no RateLimit fields and never answers 429', async () => {
    for (let i = 0; i < LIMIT + 2; i++) {
      const response = await unlimited.api('GET', '/v1/pets');
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit')).toBeNull();
      expect(response.headers.get('ratelimit-policy')).toBeNull();
    }
  });
});

describe('the OpenAPI document', () => {
  type Operation = {
    responses: Record<string, { headers?: Record<string, { required?: boolean }> }>;
  };
  const operations = () =>
    Object.values(
      server.conformance.document.paths as Record<string, Record<string, Operation>>,
    ).flatMap((path) => Object.values(path));
  const sharedHeader = (name: string) => {
    const components = server.conformance.document.components as {
      headers: Record<string, { required?: boolean }>;
    };
    const header = components.headers[name];
    if (!header) throw new Error(`no components.headers.${name}`);
    return header;
  };

  it('documents 429 with a required Retry-After on every operation', () => {
    expect(operations()).toHaveLength([...registry.values()].filter((o) => o.rest).length);
    for (const operation of operations()) {
      const retryAfter = operation.responses['429']?.headers?.['Retry-After'];
      expect(retryAfter).toEqual({ $ref: '#/components/headers/RetryAfter' });
      expect(sharedHeader('RetryAfter').required).toBe(true);
    }
  });

  it('documents the RateLimit fields on every authenticated answer', () => {
    for (const operation of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const names = Object.keys(response.headers ?? {});
        if (status === '401') expect(names).not.toContain('RateLimit');
        else expect(names).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
      }
    }
  });
});
