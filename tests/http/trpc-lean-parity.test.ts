/**
 * The same requests, in the same order, to a server with the lean tRPC path and to one that
 * sends every call through tRPC's own node adapter, each on a fresh database: every answer must
 * be the same status, body (byte for byte) and headers.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../server/auth/issue-api-key.js';
import { rawRequest, type RawResponse } from '../helpers/raw-http.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { comparable, servedBy } from '../helpers/trpc-parity.js';

interface Target {
  server: TestServer;
  readKey: string;
}

let lean: Target;
let adapter: Target;

async function startTarget(leanTrpc: boolean): Promise<Target> {
  const server = await startTestServer({ leanTrpc });
  const { key } = await issueApiKey(server.database.handle.db, { name: 'reader', scope: 'read' });
  return { server, readKey: key };
}

beforeAll(async () => {
  [lean, adapter] = await Promise.all([startTarget(true), startTarget(false)]);
});
afterAll(() => Promise.all([lean.server.close(), adapter.server.close()]));

interface Call {
  method: string;
  path: string;
  key?: 'write' | 'read' | 'none';
  headers?: Record<string, string>;
  body?: string;
}

const get = (path: string, headers: Record<string, string> = {}, key?: Call['key']): Call => ({
  method: 'GET',
  path,
  headers,
  key,
});
const post = (
  path: string,
  body: string,
  headers: Record<string, string> = {},
  key?: Call['key'],
): Call => ({
  method: 'POST',
  path,
  body,
  headers: { 'content-type': 'application/json', ...headers },
  key,
});
const input = (value: unknown) => `?input=${encodeURIComponent(JSON.stringify(value))}`;

let sequence = 0;

function send(target: Target, call: Call, requestId: string): Promise<RawResponse> {
  const key = call.key === 'read' ? target.readKey : TEST_KEY;
  return rawRequest(target.server.origin, call.path, {
    method: call.method,
    body: call.body,
    headers: {
      'x-request-id': requestId,
      ...(call.key === 'none' ? {} : { authorization: `Bearer ${key}` }),
      ...call.headers,
    },
  });
}

async function both(call: Call): Promise<{ fromLean: RawResponse; fromAdapter: RawResponse }> {
  const requestId = `parity-${++sequence}`;
  const fromLean = await send(lean, call, requestId);
  const fromAdapter = await send(adapter, call, requestId);
  expect(comparable(fromLean, lean.server.origin)).toEqual(
    comparable(fromAdapter, adapter.server.origin),
  );
  return { fromLean, fromAdapter };
}

const pet = JSON.stringify({ name: 'Rex', categoryId: 1 });
const oversized = JSON.stringify({ name: 'x'.repeat(70 * 1024), categoryId: 1 });

describe('a plain call, answered on the lean path as tRPC answers it', () => {
  it.each<[string, Call]>([
    ['a mutation', post('/trpc/pets.create', pet)],
    [
      'a mutation with a charset',
      post('/trpc/pets.create', pet, { 'content-type': 'application/json; charset=UTF-8' }),
    ],
    [
      'a mutation with an Idempotency-Key',
      post('/trpc/pets.create', pet, { 'idempotency-key': 'k1' }),
    ],
    ['its replay', post('/trpc/pets.create', pet, { 'idempotency-key': 'k1' })],
    ['a body with a byte-order mark', post('/trpc/pets.create', `\ufeff${pet}`)],
    ['a query without input', get('/trpc/pets.list')],
    ['a query with an empty input', get('/trpc/pets.list?input=')],
    ['a query with input and a next link', get(`/trpc/pets.list${input({ limit: 1 })}`)],
    ['a query of the cursor page', get(`/trpc/pets.listPage${input({ limit: 2 })}`)],
    ['a query by id', get(`/trpc/pets.get${input({ petId: 1 })}`)],
    [
      'a query with a JSON content type',
      get('/trpc/pets.list', { 'content-type': 'application/json' }),
    ],
    ['a procedure error', get(`/trpc/pets.get${input({ petId: 999999 })}`)],
    ['a validation error in a query', get(`/trpc/pets.get${input({ petId: 'x' })}`)],
    ['a query missing its input', get('/trpc/pets.get')],
    ['malformed JSON in input', get('/trpc/pets.list?input=%7B')],
    [
      'a validation error in a mutation',
      post('/trpc/pets.create', JSON.stringify({ name: 'Rex', categoryId: '3' })),
    ],
    [
      'an unknown field',
      post('/trpc/pets.create', JSON.stringify({ name: 'Rex', categoryId: 1, colour: 'red' })),
    ],
    ['malformed JSON in the body', post('/trpc/pets.create', '{"name":')],
    ['an empty body', post('/trpc/pets.create', '')],
    ['a body over 64 KiB', post('/trpc/pets.create', oversized)],
    [
      'a body that grows past 64 KiB',
      post('/trpc/pets.create', oversized, { 'transfer-encoding': 'chunked' }),
    ],
    [
      'a read key creating, refused before its body is read',
      post('/trpc/pets.create', oversized, {}, 'read'),
    ],
    ['a read key listing', get('/trpc/pets.list', {}, 'read')],
  ])('%s', async (_name, call) => {
    const { fromLean, fromAdapter } = await both(call);
    expect(servedBy(fromAdapter)).toBe('adapter');
    expect(servedBy(fromLean)).toBe('not adapter');
    expect(fromLean.headers['content-length']).toBe(String(Buffer.byteLength(fromLean.body)));
  });
});

describe('anything else, left to the adapter on the lean server too', () => {
  it.each<[string, Call]>([
    ['a query by POST', post('/trpc/pets.list', '{}')],
    ['a mutation by GET', get('/trpc/pets.create')],
    ['an unknown procedure', get('/trpc/pets.nope')],
    [
      'a batch',
      get(`/trpc/pets.list,pets.get?batch=1&input=${encodeURIComponent('{"1":{"petId":1}}')}`),
    ],
    ['a batch of one', get('/trpc/pets.list?batch=1')],
    [
      'a batched mutation',
      post('/trpc/pets.create?batch=1', JSON.stringify({ 0: { name: 'Rex', categoryId: 2 } })),
    ],
    [
      'a body that is not JSON',
      post('/trpc/pets.create', 'name=Rex', { 'content-type': 'text/plain' }),
    ],
    ['a query parameter besides input', get(`/trpc/pets.list${input({})}&cache=1`)],
    ['a streaming Accept header', get('/trpc/pets.list', { accept: 'application/jsonl' })],
    ['a percent-encoded procedure path', get('/trpc/pets%2Elist')],
  ])('%s', async (_name, call) => {
    const { fromLean, fromAdapter } = await both(call);
    expect([servedBy(fromLean), servedBy(fromAdapter)]).toEqual(['adapter', 'adapter']);
  });
});

describe('answers given before either path', () => {
  it('refuses a call without a key alike', async () => {
    const { fromLean, fromAdapter } = await both(post('/trpc/pets.create', '{"name":', {}, 'none'));
    expect(fromLean.status).toBe(401);
    expect([servedBy(fromLean), servedBy(fromAdapter)]).toEqual(['not adapter', 'not adapter']);
  });
});

describe('an unexpected failure inside a procedure', () => {
  it('answers the same clean 500 and logs it once under the request id', async () => {
    for (const { server } of [lean, adapter]) {
      await server.database.handle.db.execute(sql`alter table pets rename column name to pet_name`);
    }
    const { fromLean, fromAdapter } = await both(get('/trpc/pets.list'));
    expect(fromLean.status).toBe(500);
    expect([servedBy(fromLean), servedBy(fromAdapter)]).toEqual(['not adapter', 'adapter']);
    const requestId = `parity-${sequence}`;
    for (const { server } of [lean, adapter]) {
      const errors = server.logs.filter((line) => line.level === 50 && line.reqId === requestId);
      expect(errors).toHaveLength(1);
    }
  });
});
