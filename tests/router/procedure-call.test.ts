/**
 * The HTTP surfaces call procedures through server/procedure-call.ts, which runs our procedures
 * without tRPC's middleware runner. Every call here goes both ways, through that caller and
 * through tRPC's own callProcedure, on the same database: data, errors (code, message, cause)
 * and response headers must be the same.
 */
import { TRPCError, type AnyTRPCRouter } from '@trpc/server';
import { callProcedure } from '@trpc/server/unstable-core-do-not-import';
import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../server/auth/authenticator.js';
import { createContextInner } from '../../server/context.js';
import { createProcedureCaller } from '../../server/procedure-call.js';
import { appRouter } from '../../server/routers/_app.js';
import { authedProcedure, router, scopedProcedure } from '../../server/trpc.js';
import { reader, writer } from '../helpers/factories.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

interface Call {
  path: string;
  type: 'query' | 'mutation';
  principal: Principal | null;
  input: unknown;
}

function describeError(error: unknown) {
  if (!(error instanceof TRPCError)) return { notTRPCError: String(error) };
  const cause = error.cause;
  return {
    code: error.code,
    message: error.message,
    cause: cause ? { name: cause.constructor.name, message: cause.message } : undefined,
  };
}

/** Created pets get new ids each time; everything else must match exactly. */
function withoutIds(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null).replace(/\/pets\/\d+|"id":\d+/g, '#'));
}

async function outcome(
  run: (ctx: ReturnType<typeof createContextInner>) => Promise<unknown>,
  principal: Principal | null,
) {
  const ctx = createContextInner({ db: database.handle.db, principal, baseUrl: 'http://t/v1' });
  try {
    const data = await run(ctx);
    return { data: withoutIds(data), headers: withoutIds(ctx.responseHeaders) };
  } catch (error) {
    return { error: describeError(error), headers: withoutIds(ctx.responseHeaders) };
  }
}

async function bothWays(target: AnyTRPCRouter, call: Call) {
  const getRawInput = () => Promise.resolve(call.input);
  const { path, type } = call;
  const fused = await outcome(
    (ctx) => createProcedureCaller(target).call({ path, type, ctx, getRawInput }),
    call.principal,
  );
  const runner = await outcome(
    (ctx) =>
      callProcedure({
        router: target,
        path,
        type,
        ctx,
        getRawInput,
        signal: undefined,
        batchIndex: 0,
      }),
    call.principal,
  );
  return { fused, runner };
}

async function expectSame(target: AnyTRPCRouter, call: Call) {
  const { fused, runner } = await bothWays(target, call);
  expect(fused).toEqual(runner);
  return fused;
}

describe('createProcedureCaller', () => {
  it('fuses every procedure of the app router', () => {
    expect(createProcedureCaller(appRouter).fusedPaths().sort()).toEqual(
      Object.keys(appRouter._def.procedures).sort(),
    );
  });

  const cases: [string, Call][] = [
    ['get: found', { path: 'pets.get', type: 'query', principal: reader, input: { petId: 1 } }],
    ['get: absent', { path: 'pets.get', type: 'query', principal: reader, input: { petId: 9e9 } }],
    ['get: bad id', { path: 'pets.get', type: 'query', principal: reader, input: { petId: 'x' } }],
    ['get: no input', { path: 'pets.get', type: 'query', principal: reader, input: undefined }],
    ['get: anonymous', { path: 'pets.get', type: 'query', principal: null, input: { petId: 1 } }],
    ['get: as mutation', { path: 'pets.get', type: 'mutation', principal: reader, input: {} }],
    ['unknown path', { path: 'pets.nope', type: 'query', principal: reader, input: {} }],
    ['list: defaults', { path: 'pets.list', type: 'query', principal: reader, input: undefined }],
    [
      'list: page with link',
      { path: 'pets.list', type: 'query', principal: reader, input: { limit: 1 } },
    ],
    [
      'list: bad cursor',
      { path: 'pets.list', type: 'query', principal: reader, input: { cursor: 'abc' } },
    ],
    ['listPage', { path: 'pets.listPage', type: 'query', principal: reader, input: { limit: 2 } }],
    [
      'create',
      {
        path: 'pets.create',
        type: 'mutation',
        principal: writer,
        input: { name: 'Rex', categoryId: 2 },
      },
    ],
    [
      'create: read-only key',
      { path: 'pets.create', type: 'mutation', principal: reader, input: { name: 'Rex' } },
    ],
    [
      'create: unknown field',
      {
        path: 'pets.create',
        type: 'mutation',
        principal: writer,
        input: { name: 'Rex', categoryId: 2, extra: 1 },
      },
    ],
  ];
  beforeAll(async () => {
    await createProcedureCaller(appRouter).call({
      path: 'pets.create',
      type: 'mutation',
      ctx: createContextInner({
        db: database.handle.db,
        principal: writer,
        baseUrl: 'http://t/v1',
      }),
      getRawInput: () => Promise.resolve({ name: 'First', categoryId: 1 }),
    });
  });
  it.each(cases)('%s: the same answer as tRPC runner', async (_name, call) => {
    await expectSame(appRouter, call);
  });

  it('answers any input as the runner does', async () => {
    const json = fc.jsonValue({ maxDepth: 2 });
    const input = fc.oneof(
      json,
      fc.record({ petId: fc.oneof(fc.integer(), json) }),
      fc.record({ limit: fc.oneof(fc.integer({ min: -1, max: 101 }), json) }, { requiredKeys: [] }),
      fc.record({ name: fc.string(), categoryId: fc.oneof(fc.integer(), json) }),
    );
    const path = fc.constantFrom('pets.get', 'pets.list', 'pets.listPage', 'pets.create');
    await fc.assert(
      fc.asyncProperty(path, input, fc.boolean(), async (at, raw, canWrite) => {
        const call: Call = {
          path: at,
          type: at === 'pets.create' ? 'mutation' : 'query',
          principal: canWrite ? writer : reader,
          input: raw,
        };
        const { fused, runner } = await bothWays(appRouter, call);
        expect(fused).toEqual(runner);
      }),
      { numRuns: 150 },
    );
  });
});

describe('failures the app router cannot make on demand', () => {
  const unavailable = Object.assign(new Error('connect refused'), { code: 'ECONNREFUSED' });
  const testRouter = router({
    badOutput: authedProcedure
      .input(z.object({}))
      .output(z.object({ id: z.int() }))
      .query(() => ({ id: 'one' }) as unknown as { id: number }),
    throwsPlain: authedProcedure
      .input(z.object({}))
      .output(z.object({}))
      .query(() => {
        throw new Error('boom');
      }),
    throwsUnavailable: scopedProcedure('write')
      .input(z.object({}))
      .output(z.object({}))
      .mutation(() => Promise.reject(unavailable)),
    throwsTRPC: authedProcedure
      .input(z.object({}))
      .output(z.object({}))
      .query(() => {
        throw new TRPCError({ code: 'CONFLICT', message: 'taken' });
      }),
    twoInputs: authedProcedure
      .input(z.object({ a: z.int() }))
      .input(z.object({ b: z.int() }))
      .output(z.object({ sum: z.int() }))
      .query(({ input }) => ({ sum: input.a + input.b })),
  });

  it('fuses the guarded shape only, and runs the rest through tRPC', () => {
    expect(createProcedureCaller(testRouter).fusedPaths().sort()).toEqual([
      'badOutput',
      'throwsPlain',
      'throwsTRPC',
      'throwsUnavailable',
    ]);
  });

  it.each([
    ['badOutput', 'query', 'INTERNAL_SERVER_ERROR'],
    ['throwsPlain', 'query', 'INTERNAL_SERVER_ERROR'],
    ['throwsUnavailable', 'mutation', 'SERVICE_UNAVAILABLE'],
    ['throwsTRPC', 'query', 'CONFLICT'],
    ['twoInputs', 'query', undefined],
  ] as const)('%s: the same answer as the runner (%s)', async (path, type, code) => {
    const input = path === 'twoInputs' ? { a: 1, b: 2 } : {};
    const answer = await expectSame(testRouter, { path, type, principal: writer, input });
    expect(answer.error?.code).toBe(code);
  });
});
