import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { initTRPC, type AnyTRPCRouter, type TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createContextInner, type Context } from '../../server/context.js';
import { createRequestState } from '../../server/http/request-state.js';
import { createTrpcHandler } from '../../server/http/trpc-handler.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { rawRequest } from '../helpers/raw-http.js';
import { comparable, servedBy } from '../helpers/trpc-parity.js';

/**
 * What this service's router never exercises but the lean path must still answer as tRPC's
 * adapter does: a data transformer, and a query whose result only a streaming link can carry.
 */
const t = initTRPC.context<Context>().create({
  // Stack traces name each path's own frames; the answers are otherwise the same.
  isDev: false,
  transformer: {
    serialize: (value: unknown) => ({ wrapped: value }),
    deserialize: (value: unknown) => (value as { wrapped: unknown }).wrapped,
  },
});
const router = t.router({
  double: t.procedure.input(z.object({ n: z.number() })).query(({ input }) => input.n * 2),
  numbers: t.procedure.query(async function* () {
    yield await Promise.resolve(1);
  }),
  later: t.procedure.query(() => ({ value: Promise.resolve(1) })),
});

interface Served {
  origin: string;
  errors: TRPCError[];
  server: Server;
}

let database: TestDatabase;
let lean: Served;
let adapter: Served;

async function serve(appRouter: AnyTRPCRouter, leanTrpc: boolean): Promise<Served> {
  const trpc = createTrpcHandler(appRouter, { lean: leanTrpc });
  const errors: TRPCError[] = [];
  const server = createServer((req, res) => {
    const state = createRequestState(req, { trustProxy: false, fallbackOrigin: 'http://x.test' });
    const ctx = createContextInner({ db: database.handle.db, principal: null, baseUrl: '' });
    void trpc(req, res, state, state.url.pathname.slice('/trpc/'.length), ctx, (error) => {
      errors.push(error);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, errors, server };
}

beforeAll(async () => {
  database = await createTestDatabase();
  [lean, adapter] = await Promise.all([serve(router, true), serve(router, false)]);
});
afterAll(async () => {
  for (const { server } of [lean, adapter]) {
    await new Promise((resolve) => server.close(resolve));
  }
  await database.destroy();
});

describe('the lean path on another router', () => {
  it.each([
    [
      'input and output through its transformer',
      `/trpc/double?input=${encodeURIComponent('{"wrapped":{"n":21}}')}`,
    ],
    [
      'a validation error through its transformer',
      `/trpc/double?input=${encodeURIComponent('{"wrapped":{}}')}`,
    ],
    ['an async generator from a query', '/trpc/numbers'],
    ['a promise inside a query result', '/trpc/later'],
  ])('answers %s as the adapter does', async (_name, path) => {
    // The same request id on both, as every answer carries it.
    const headers = { 'x-request-id': 'same-on-both' };
    const fromLean = await rawRequest(lean.origin, path, { headers });
    const fromAdapter = await rawRequest(adapter.origin, path, { headers });
    expect(comparable(fromLean, lean.origin)).toEqual(comparable(fromAdapter, adapter.origin));
    expect([servedBy(fromLean), servedBy(fromAdapter)]).toEqual(['not adapter', 'adapter']);
    expect(lean.errors.map((error) => error.code)).toEqual(
      adapter.errors.map((error) => error.code),
    );
  });

  it('refuses stream-like results with 415, naming no path', async () => {
    const { status, body } = await rawRequest(lean.origin, '/trpc/numbers');
    expect(status).toBe(415);
    expect(JSON.parse(body)).toMatchObject({
      error: { wrapped: { data: { code: 'UNSUPPORTED_MEDIA_TYPE' } } },
    });
    expect(body).not.toContain('"path"');
  });
});
