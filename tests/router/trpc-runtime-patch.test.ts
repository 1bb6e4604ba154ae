import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initTRPC, TRPCError } from '@trpc/server';
import { transformTRPCResponse } from '@trpc/server/unstable-core-do-not-import';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

/**
 * patches/@trpc+server+*.patch rewrites tRPC's middleware runner (callRecursive, the input and
 * output middlewares, the iterable wrapper) from a down-levelled spread helper to native spread.
 * These are the runner's documented behaviours at each rewritten site, so a patch regenerated
 * for a new tRPC version cannot change them unnoticed; the last test shows the patch is applied.
 */
const SYMBOL_KEY = Symbol('carried');

const t = initTRPC.context<{ requestId: string; [SYMBOL_KEY]?: string }>().create();

const withUser = t.middleware(({ next }) => next({ ctx: { user: 'ada', [SYMBOL_KEY]: 'kept' } }));

const router = t.router({
  whoAmI: t.procedure
    .use(withUser)
    .query(({ ctx }) => ({ requestId: ctx.requestId, user: ctx.user, symbol: ctx[SYMBOL_KEY] })),
  merged: t.procedure
    .input(z.object({ a: z.number() }))
    .input(z.object({ b: z.string() }))
    .query(({ input }) => input),
  trimmed: t.procedure
    .output(z.object({ kept: z.string() }))
    .query(() => ({ kept: 'yes', dropped: 'no' })),
  counted: t.procedure.query(async function* () {
    for (const value of await Promise.resolve([1, 2])) yield value;
  }),
  refused: t.procedure
    .use(() => {
      throw new TRPCError({ code: 'FORBIDDEN', message: 'no' });
    })
    .query(() => 'unreachable'),
});

const caller = t.createCallerFactory(router)({ requestId: 'r-1' });

describe('tRPC middleware runner, as patched', () => {
  it('merges the context a middleware passes to next, symbol keys included', async () => {
    expect(await caller.whoAmI()).toEqual({ requestId: 'r-1', user: 'ada', symbol: 'kept' });
  });

  it('merges the inputs of chained input parsers', async () => {
    expect(await caller.merged({ a: 1, b: 'two' })).toEqual({ a: 1, b: 'two' });
  });

  it('answers what the output parser returns', async () => {
    expect(await caller.trimmed()).toEqual({ kept: 'yes' });
  });

  it('still wraps an async iterable result', async () => {
    const values: number[] = [];
    for await (const value of await caller.counted()) values.push(value);
    expect(values).toEqual([1, 2]);
  });

  it('turns a middleware throw into the call rejecting with that error', async () => {
    await expect(caller.refused()).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'no' });
  });

  it('is applied: the installed runner spreads natively', () => {
    const callRecursive = installedFunction(/^initTRPC-.*\.mjs$/, 'async function callRecursive');
    expect(callRecursive).toContain('...opts,');
    expect(callRecursive).not.toContain('_objectSpread2');
  });
});

/**
 * transformTRPCResponse serialises each answer of both /trpc paths; it too was compiled with
 * `_objectSpread2`, 4.5 µs per tRPC get in a profile under load.
 */
describe('tRPC response transform, as patched', () => {
  const config = initTRPC.create({
    transformer: {
      serialize: (value: unknown) => ({ wrapped: value }),
      deserialize: (value: unknown) => (value as { wrapped: unknown }).wrapped,
    },
  })._config;

  it('serialises the data of a result, keeping its other fields', () => {
    const response = { id: 7, result: { type: 'data' as const, data: { n: 1 } } };
    expect(transformTRPCResponse(config, response)).toEqual({
      id: 7,
      result: { type: 'data', data: { wrapped: { n: 1 } } },
    });
    expect(response.result.data).toEqual({ n: 1 });
  });

  it('serialises an error, and each item of a batch', () => {
    const error = { code: -32600 as const, message: 'no', data: { code: 'BAD_REQUEST' } };
    const batch = [
      { id: 1, error },
      { id: 2, result: { data: 2 } },
    ];
    expect(transformTRPCResponse(config, batch)).toEqual([
      { id: 1, error: { wrapped: error } },
      { id: 2, result: { data: { wrapped: 2 } } },
    ]);
  });

  it('is applied: the installed transform spreads natively', () => {
    const transform = installedFunction(
      /^asyncGeneratorDelegate-.*\.mjs$/,
      'function transformTRPCResponseItem',
    );
    expect(transform).toContain('...item.result,');
    expect(transform).not.toContain('_objectSpread2');
  });
});

/** The first 400 characters of a function in @trpc/server's installed ES module build. */
function installedFunction(file: RegExp, start: string): string {
  const dist = dirname(fileURLToPath(import.meta.resolve('@trpc/server')));
  const name = readdirSync(dist).find((candidate) => file.test(candidate));
  expect(name).toBeDefined();
  const source = readFileSync(join(dist, name ?? ''), 'utf8');
  expect(source).toContain(start);
  return source.slice(source.indexOf(start)).slice(0, 400);
}
