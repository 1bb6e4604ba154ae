import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initTRPC, TRPCError } from '@trpc/server';
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
    const dist = dirname(fileURLToPath(import.meta.resolve('@trpc/server')));
    const runner = readdirSync(dist).find((file) => /^initTRPC-.*\.mjs$/.test(file));
    expect(runner).toBeDefined();
    const source = readFileSync(join(dist, runner ?? ''), 'utf8');
    const callRecursive = source.slice(source.indexOf('async function callRecursive'));
    expect(callRecursive.slice(0, 400)).toContain('...opts,');
    expect(callRecursive.slice(0, 400)).not.toContain('_objectSpread2');
  });
});
