import { describe, expect, it } from 'vitest';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

/** CORS lets a page send every header the service reads and read every header it documents. */
const ALLOWED = 'https://app.petstore.test';
const server = useTestServer({ corsOrigins: [ALLOWED] });

type Json = Record<string, unknown>;

const namesOf = (field: string | null) =>
  new Set((field ?? '').split(',').map((name) => name.trim().toLowerCase()));

/** Every header named by the served document, for requests and for answers. */
async function documented() {
  const document = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, Json>>;
  };
  const request = new Set<string>();
  const response = new Set<string>();
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        if (parameter.in === 'header') request.add(String(parameter.name).toLowerCase());
      }
      for (const answer of Object.values((operation.responses ?? {}) as Record<string, Json>)) {
        for (const name of Object.keys(answer.headers ?? {})) {
          response.add(name.toLowerCase());
        }
      }
    }
  }
  return { request, response };
}

function preflight(path: string, method: string, headers: string, origin = ALLOWED) {
  return fetch(`${server.origin}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': headers,
    },
  });
}

describe('the CORS preflight', () => {
  it('allows every request header the service reads', async () => {
    const response = await preflight('/v1/events', 'GET', 'authorization, last-event-id');
    expect(response.status).toBe(204);
    const allowed = namesOf(response.headers.get('access-control-allow-headers'));
    const contract = [
      'authorization',
      'content-type',
      'if-match',
      'if-none-match',
      'idempotency-key',
      'last-event-id',
      'x-request-id',
      // httpBatchStreamLink asks for streamed answers with it.
      'trpc-accept',
      // A browser's tracing carries its trace into the service's logs.
      'traceparent',
    ];
    for (const name of [...contract, ...(await documented()).request]) {
      expect(allowed, name).toContain(name);
    }
  });
});

/**
 * A browser sends a preflight without credentials, so authentication cannot answer it: an
 * origin that is not allowed gets an empty 204 without CORS headers, and the browser, finding
 * no Access-Control-Allow-Origin, refuses the page its request.
 */
describe('a preflight from an origin that is not allowed', () => {
  it.each(['/v1/pets', '/trpc/pets.list', '/v1/no-such-route'])(
    'is 204 without CORS headers on %s, not 401',
    async (path) => {
      const response = await preflight(path, 'GET', 'authorization', 'https://other.example');
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('access-control-allow-headers')).toBeNull();
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(await response.text()).toBe('');
    },
  );

  it('is still answered by the route when it is no preflight (no Origin): 401 first', async () => {
    const response = await fetch(`${server.baseUrl}/pets`, { method: 'OPTIONS' });
    expect(response.status).toBe(401);
  });
});

describe('an answer to an allowed origin', () => {
  it('exposes every response header the document names', async () => {
    const response = await server.api('GET', '/v1/pets', { headers: { origin: ALLOWED } });
    expect(response.status).toBe(200);
    const exposed = namesOf(response.headers.get('access-control-expose-headers'));
    const { response: names } = await documented();
    for (const name of ['etag', 'location', 'link', 'retry-after', 'idempotent-replayed']) {
      expect(names, name).toContain(name);
    }
    for (const name of names) expect(exposed, name).toContain(name);
  });

  it('adds Origin to Vary, keeping what the answer varies by already', async () => {
    const response = await fetch(
      `${server.origin}/trpc/pets.list?input=${encodeURIComponent('{}')}`,
      { headers: { authorization: `Bearer ${TEST_KEY}`, origin: ALLOWED } },
    );
    expect(response.status).toBe(200);
    expect(namesOf(response.headers.get('vary'))).toEqual(
      new Set(['trpc-accept', 'accept', 'origin']),
    );
  });
});
