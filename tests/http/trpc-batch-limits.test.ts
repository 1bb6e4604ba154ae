import { count } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { pets } from '../../db/schema.js';
import type { ApiResponse } from '../helpers/http.js';
import { TEST_KEY, useTestServer, type TestServer } from '../helpers/server.js';

const LIMIT = 30;
const MAX_BATCH = 20;
const READER_KEY = 'test-key-batch-reader';
const CAP_KEY = 'test-key-batch-cap';

const server = useTestServer({
  apiKeys: [TEST_KEY, READER_KEY, CAP_KEY],
  rateLimit: { limit: LIMIT, windowSeconds: 60 },
  maxBatchCalls: MAX_BATCH,
});

interface BatchOptions {
  key?: string;
  /** The procedure list as sent in the path; by default joined with a plain comma. */
  path?: string;
}

/** A raw tRPC batch of `calls`, as httpBatchLink sends it; the answer is checked like any. */
async function batch(
  target: TestServer,
  procedure: 'pets.create' | 'pets.list',
  inputs: unknown[],
  options: BatchOptions = {},
): Promise<ApiResponse> {
  const path = options.path ?? inputs.map(() => procedure).join(',');
  const url = new URL(`/trpc/${path}`, target.origin);
  url.searchParams.set('batch', '1');
  const body = JSON.stringify(Object.fromEntries(inputs.map((input, index) => [index, input])));
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.key ?? TEST_KEY}`,
  };
  const init: RequestInit = { headers };
  if (procedure === 'pets.create') {
    Object.assign(init, { method: 'POST', body });
    headers['content-type'] = 'application/json';
  } else url.searchParams.set('input', body);
  const response = await fetch(url, init);
  const text = await response.text();
  const result = {
    status: response.status,
    headers: response.headers,
    body: JSON.parse(text) as unknown,
  };
  target.conformance.checkTrpc(url.toString(), result);
  return result;
}

async function petCount(): Promise<number> {
  const rows = await server.database.handle.db.select({ n: count() }).from(pets);
  return rows[0]?.n ?? 0;
}

const newPets = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ name: `${tag} ${i}`, categoryId: 1 }));

describe('a tRPC batch spends one request of the rate limit per call', () => {
  it('counts every call, and refuses a batch that would overspend whole, before any call runs', async () => {
    const first = await batch(server, 'pets.create', newPets(MAX_BATCH, 'batch one'));
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit')).toMatch(
      new RegExp(`^"default";r=${LIMIT - MAX_BATCH};t=\\d+$`),
    );
    const before = await petCount();

    const refused = await batch(server, 'pets.create', newPets(MAX_BATCH, 'batch two'));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { data: { code: 'TOO_MANY_REQUESTS' } } });
    expect((refused.body as { error: { message: string } }).error.message).toMatch(
      /this batch counts 20 calls/,
    );
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // What is left is said, so the client knows a smaller batch would pass.
    expect(refused.headers.get('ratelimit')).toMatch(
      new RegExp(`^"default";r=${LIMIT - MAX_BATCH};t=\\d+$`),
    );
    expect(await petCount()).toBe(before);

    // The refused batch spent nothing: the ten calls that were left are still there.
    const rest = await batch(server, 'pets.create', newPets(LIMIT - MAX_BATCH, 'batch three'));
    expect(rest.status).toBe(200);
    expect(await petCount()).toBe(before + LIMIT - MAX_BATCH);
    const single = await server.trpc(
      'pets.create',
      { name: 'one too many', categoryId: 1 },
      'mutation',
    );
    expect(single.status).toBe(429);
  });

  it('counts a GET batch of lists call by call too', async () => {
    const lists = Array.from({ length: MAX_BATCH }, () => ({ limit: 100 }));
    const answered = await batch(server, 'pets.list', lists, { key: READER_KEY });
    expect(answered.status).toBe(200);
    expect(answered.body).toHaveLength(MAX_BATCH);
    const second = await batch(server, 'pets.list', lists, { key: READER_KEY });
    expect(second.status).toBe(429);
  });
});

describe(`a tRPC batch holds at most TRPC_MAX_BATCH (${MAX_BATCH}) calls`, () => {
  it('refuses a larger batch with 400 naming the cap, before any call runs, as one request', async () => {
    const before = await petCount();
    const refused = await batch(server, 'pets.create', newPets(MAX_BATCH + 1, 'too many'), {
      key: CAP_KEY,
    });
    expect(refused.status).toBe(400);
    expect((refused.body as { error: { message: string } }).error.message).toBe(
      `A batch may hold at most ${MAX_BATCH} calls; this one holds ${MAX_BATCH + 1}`,
    );
    expect(await petCount()).toBe(before);
    const lists = Array.from({ length: 250 }, () => ({ limit: 100 }));
    expect((await batch(server, 'pets.list', lists, { key: CAP_KEY })).status).toBe(400);
    const next = await server.trpc('pets.list', { limit: 1 }, 'query', { key: CAP_KEY });
    // Each refused batch spent one request, as any refused request does; none spent its calls.
    expect(next.headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${LIMIT - 3};t=\\d+$`));
  });

  it('answers an oversized batch without a key with 401: authentication comes first', async () => {
    const url = `${server.origin}/trpc/${Array(MAX_BATCH + 1)
      .fill('pets.list')
      .join(',')}?batch=1`;
    expect((await fetch(url)).status).toBe(401);
  });

  it.each([
    ['percent-encoded commas', '%2C'],
    ['lower-case percent-encoded commas', '%2c'],
  ])('counts calls separated by %s as tRPC does, after decoding the path', async (_, comma) => {
    const before = await petCount();
    const inputs = newPets(MAX_BATCH + 1, 'encoded');
    const path = inputs.map(() => 'pets.create').join(comma);
    const refused = await batch(server, 'pets.create', inputs, { key: CAP_KEY, path });
    expect(refused.status).toBe(400);
    expect(await petCount()).toBe(before);
  });
});
