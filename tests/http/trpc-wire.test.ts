import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  installedTrpcVersion,
  TRPC_WIRE_VERSION,
} from '../../server/surfaces/http/fast-path/wire.js';
import { defineMutation, defineQuery, type AnyOperation } from '../../server/operations/define.js';
import { operations as appOperations } from '../../server/operations/registry.js';
import { mergeRouters, router } from '../../server/surfaces/trpc/init.js';
import { appRouter } from '../../server/surfaces/trpc/router.js';
import { proceduresOf } from '../../server/surfaces/trpc/procedures.js';
import { issueApiKey } from '../../server/domain/auth/issue-api-key.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { newPet } from '../helpers/factories.js';
import type { ApiClient } from '../helpers/http.js';
import { useTestServer, type TestServerOptions } from '../helpers/server.js';
import { storeCases, type WireCase } from './trpc-wire-cases.js';

/**
 * The fast `/trpc` path writes tRPC's wire format itself. Every call below goes to two servers
 * on one database, one with the fast path and one sending every call to tRPC's own adapter,
 * and both answers must be the same: every procedure of the service, and every error kind a
 * procedure can end in (through a router of failing procedures built the same way).
 */
const CODES = [
  'BAD_REQUEST',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNPROCESSABLE_CONTENT',
  'TOO_MANY_REQUESTS',
  'INTERNAL_SERVER_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

const fails = {
  with: defineQuery({
    scope: 'read',
    input: z.strictObject({ code: z.enum(CODES) }),
    output: z.null(),
    handler: (_ctx, { code }) =>
      Promise.reject(new TRPCError({ code, message: `Failed: ${code}` })),
  }),
  unexpected: defineQuery({
    scope: 'read',
    input: z.undefined(),
    output: z.null(),
    handler: () => Promise.reject(new Error('internal detail: /srv/secret.sql')),
  }),
  databaseLost: defineMutation({
    scope: 'write',
    input: z.strictObject({ n: z.int() }),
    output: z.null(),
    handler: () =>
      Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
  }),
  badOutput: defineQuery({
    scope: 'read',
    input: z.undefined(),
    output: z.strictObject({ id: z.int() }),
    handler: () => Promise.resolve({ id: 'not a number' } as unknown as { id: number }),
  }),
};

const api = {
  router: mergeRouters(appRouter, router({ fails: router(proceduresOf(fails)) })),
  operations: new Map<string, AnyOperation>([
    ...appOperations,
    ...Object.entries(fails).map(([name, operation]): [string, AnyOperation] => [
      `fails.${name}`,
      operation,
    ]),
  ]),
};

const WRITE_KEY = 'wire-write-key';
let READ_KEY = '';
let shared: Promise<TestDatabase> | undefined;

async function sharedDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  READ_KEY = (await issueApiKey(database.handle.db, { name: 'reader', scope: 'read' })).key;
  return database;
}

const options = (trpcFastPath: boolean) => async (): Promise<TestServerOptions> => ({
  api,
  database: await (shared ??= sharedDatabase()),
  apiKeys: [WRITE_KEY],
  rateLimit: 'off',
  trpcFastPath,
  // The fast server's afterAll runs last (hooks unwind), so it closes the shared database.
  keepDatabase: !trpcFastPath,
});
const fast = useTestServer(options(true));
const adapter = useTestServer(options(false));

type Case = WireCase;

/** Headers about the connection or the moment, not the answer: chunked on the adapter. */
const TRANSPORT = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
]);

/**
 * Ids, versions and times differ between the two servers' pets, orders and events; the rest may
 * not. Every id is masked, a number (a pet's) or a string (an event's, a key's).
 */
function normalised(text: string): string {
  return text
    .replace(/"(id|\w+Id)":(?:\d+|"(?:[^"\\]|\\.)*")/g, '"$1":ID')
    .replace(/\b(Pet|pet|Order|order|id) \d+/g, '$1 ID')
    .replace(/\((\d+), (placed|approved)\)/g, '(ID, $2)')
    .replace(/\\"\d+\.(\d+)\\"/g, '\\"ID.$1\\"')
    .replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g, '"TIME"')
    .replace(/"pst_[A-Za-z0-9_-]{43}"/g, '"TICKET"');
}

async function call(origin: string, { procedure, input, raw, kind, key, headers }: Case) {
  const url = new URL(`/trpc/${procedure}`, origin);
  const text = raw ?? (input === undefined ? undefined : JSON.stringify(input));
  if (kind === 'query' && text !== undefined) url.searchParams.set('input', text);
  const response = await fetch(url, {
    method: kind === 'query' ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${key === 'READ' ? READ_KEY : WRITE_KEY}`,
      ...(kind === 'mutation' ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: kind === 'mutation' ? text : undefined,
  });
  const comparable: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (TRANSPORT.has(name)) return;
    comparable[name] = value
      .replaceAll(origin, 'ORIGIN')
      .replace(/\/(pets|store\/orders)\/\d+/, '/$1/ID')
      .replace(/^"\d+\./, '"ID.');
  });
  delete comparable['x-request-id'];
  const body = normalised(await response.text());
  return {
    answer: { status: response.status, headers: comparable, body },
    chunked: response.headers.get('transfer-encoding') === 'chunked',
  };
}

/** REST calls with the write key, for cases that make their pet or order first. */
const writer: ApiClient = (method, path, options) =>
  fast.api(method, path, { key: WRITE_KEY, ...options });

const existingPet = { petId: 1 };
const cases: [string, Case][] = [
  ['pets.list', { procedure: 'pets.list', kind: 'query', input: { limit: 2 } }],
  ['pets.list without input', { procedure: 'pets.list', kind: 'query' }],
  ['pets.list, invalid input', { procedure: 'pets.list', kind: 'query', input: { limit: 0 } }],
  ['pets.list, unknown field', { procedure: 'pets.list', kind: 'query', input: { colour: 1 } }],
  [
    'pets.list, altered cursor',
    { procedure: 'pets.list', kind: 'query', input: { cursor: 'x.y' } },
  ],
  ['pets.listPage', { procedure: 'pets.listPage', kind: 'query', input: { limit: 1 } }],
  ['pets.listPage, invalid', { procedure: 'pets.listPage', kind: 'query', input: { limit: 'a' } }],
  ['pets.create', { procedure: 'pets.create', kind: 'mutation', input: newPet() }],
  ['pets.create, invalid', { procedure: 'pets.create', kind: 'mutation', input: { name: '' } }],
  [
    'pets.create, read key',
    { procedure: 'pets.create', kind: 'mutation', input: newPet(), key: 'READ' },
  ],
  [
    'pets.create, bad Idempotency-Key',
    {
      procedure: 'pets.create',
      kind: 'mutation',
      input: newPet(),
      headers: { 'idempotency-key': '"' },
    },
  ],
  ['pets.get', { procedure: 'pets.get', kind: 'query', input: existingPet }],
  ['pets.get, unknown pet', { procedure: 'pets.get', kind: 'query', input: { petId: 9_000_000 } }],
  ['pets.get, invalid id', { procedure: 'pets.get', kind: 'query', input: { petId: -1 } }],
  ['pets.get, no input', { procedure: 'pets.get', kind: 'query' }],
  ...CODES.map((code): [string, Case] => [
    `a procedure failing with ${code}`,
    { procedure: 'fails.with', kind: 'query', input: { code } },
  ]),
  ['an unexpected error', { procedure: 'fails.unexpected', kind: 'query' }],
  ['a lost database', { procedure: 'fails.databaseLost', kind: 'mutation', input: { n: 1 } }],
  ['output that fails its schema', { procedure: 'fails.badOutput', kind: 'query' }],
  ...storeCases,
];

describe("the fast /trpc path against tRPC's own adapter", () => {
  it(`runs on the @trpc/server version it was checked against (${TRPC_WIRE_VERSION}); on another, run this file and update TRPC_WIRE_VERSION`, () => {
    expect(installedTrpcVersion()).toBe(TRPC_WIRE_VERSION);
  });

  it('has a case for every procedure of the registry', () => {
    const covered = new Set(cases.map(([, request]) => request.procedure));
    expect([...api.operations.keys()].filter((procedure) => !covered.has(procedure))).toEqual([]);
  });

  it.each(cases)('answers %s the same', async (_, request) => {
    if (request.procedure === 'pets.get' && request.input === existingPet) {
      await fast.api('POST', '/v1/pets', { body: newPet(), key: WRITE_KEY });
    }
    const { prepare } = request;
    const on = async (origin: string) =>
      call(origin, prepare ? { ...request, input: await prepare(writer) } : request);
    const viaFastPath = await on(fast.origin);
    const viaAdapter = await on(adapter.origin);
    expect(viaFastPath.answer).toEqual(viaAdapter.answer);
    expect(viaAdapter.chunked).toBe(true);
    // The fast path writes its answers whole; a subscription it leaves to the adapter.
    const streams = api.operations.get(request.procedure)?.kind === 'subscription';
    expect(viaFastPath.chunked).toBe(streams);
  });

  it('answers the same when the idempotency key was used with another body (422)', async () => {
    const first = { procedure: 'pets.create', kind: 'mutation' as const, input: newPet() };
    const reused = { ...first, input: newPet() };
    for (const [origin, key] of [
      [fast.origin, 'wire-fast'],
      [adapter.origin, 'wire-adapter'],
    ] as const) {
      const headers = { 'idempotency-key': key };
      expect((await call(origin, { ...first, headers })).answer.status).toBe(200);
    }
    const viaFastPath = await call(fast.origin, {
      ...reused,
      headers: { 'idempotency-key': 'wire-fast' },
    });
    const viaAdapter = await call(adapter.origin, {
      ...reused,
      headers: { 'idempotency-key': 'wire-adapter' },
    });
    expect(viaFastPath.answer.status).toBe(422);
    expect(viaFastPath.answer.body.replace('wire-fast', 'KEY')).toEqual(
      viaAdapter.answer.body.replace('wire-adapter', 'KEY'),
    );
  });
});
