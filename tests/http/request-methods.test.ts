import { describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/http.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const server = useTestServer();

/** node's client, since fetch refuses to send TRACE. */
const send = (method: string, path: string, key: string | null = TEST_KEY) =>
  rawRequest(server.origin, path, {
    method,
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
  });

const trpcCode = (body: string) =>
  (JSON.parse(body) as { error: { data: { code: string } } }).error.data.code;

const OTHER_METHODS = ['HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'];

const serverErrors = () => server.logs.filter((line) => (line.level as number) >= 50);

/**
 * /trpc answers in the documented order, as REST does: an unknown procedure is a 404 and a
 * method the procedure does not take a 405 with `Allow`, whatever the method and before the
 * content type is looked at (tRPC's adapter alone would say 415, 204 for HEAD, 500 for TRACE).
 */
describe('/trpc methods', () => {
  it.each([
    ['a query', '/trpc/pets.list', 'GET', ['POST', ...OTHER_METHODS]],
    ['a mutation', '/trpc/pets.create', 'POST', ['GET', ...OTHER_METHODS]],
    ['the subscription', '/trpc/events.onChange', 'GET', ['POST', ...OTHER_METHODS]],
    ['a batch of queries', '/trpc/pets.list,pets.get?batch=1', 'GET', ['POST', ...OTHER_METHODS]],
  ])('answers %s with 405 and Allow for every other method', async (_, path, allow, methods) => {
    for (const method of methods) {
      const response = await send(method, path);
      expect(response.status, method).toBe(405);
      expect(response.headers.allow, method).toBe(allow);
      if (method !== 'HEAD') expect(trpcCode(response.body), method).toBe('METHOD_NOT_SUPPORTED');
    }
  });

  it('answers an unknown procedure with 404 whatever the method, HEAD included', async () => {
    for (const method of ['GET', 'POST', ...OTHER_METHODS]) {
      const response = await send(method, '/trpc/nope');
      expect(response.status, method).toBe(404);
      if (method !== 'HEAD') expect(trpcCode(response.body), method).toBe('NOT_FOUND');
    }
  });

  it('authenticates first: a TRACE without a key is a 401', async () => {
    expect((await send('TRACE', '/trpc/pets.list', null)).status).toBe(401);
  });

  it('still answers each call of a GET batch on its own', async () => {
    const response = await send('GET', '/trpc/pets.list,nope?batch=1&input={}');
    expect(response.status).toBe(207);
  });
});

describe('TRACE', () => {
  it.each([
    ['a REST route', '/v1/pets', 'GET, POST'],
    ['a tRPC procedure', '/trpc/pets.get', 'GET'],
    ['the health route', '/healthz', 'GET, HEAD'],
    ['the document', '/v1/openapi.json', 'GET, HEAD'],
    ['the reference page', '/docs', 'GET, HEAD'],
    ['the root', '/', 'GET, HEAD'],
  ])('is refused on %s with 405 and Allow, and logs no failure', async (_, path, allow) => {
    const before = serverErrors().length;
    const response = await send('TRACE', path);
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(serverErrors()).toHaveLength(before);
  });
});
