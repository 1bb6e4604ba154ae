import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../server/auth/authenticator.js';
import { createContextInner } from '../../server/context.js';
import { createCaller } from '../../server/routers/_app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertManyPets } from '../helpers/factories.js';

const reader: Principal = { keyId: 'reader', scope: 'read' };

let database: TestDatabase;
let soldIds: number[];

beforeAll(async () => {
  database = await createTestDatabase();
  await insertManyPets(database.handle.db, 30, () => 'available');
  soldIds = await insertManyPets(database.handle.db, 25, () => 'sold');
});
afterAll(() => database.destroy());

function callerWith(cursorSecret?: string) {
  const ctx = createContextInner({
    db: database.handle.db,
    principal: reader,
    baseUrl: 'http://pets.test/v1',
    cursorSecret,
  });
  return { caller: createCaller(ctx), ctx };
}

async function rejection(promise: Promise<unknown>): Promise<TRPCError> {
  const error: unknown = await promise.then(
    () => undefined,
    (cause: unknown) => cause,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

describe('pets.listPage', () => {
  it('walks every pet of a status once, ending with a null nextCursor', async () => {
    const { caller } = callerWith();
    const ids: number[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await caller.pets.listPage({ status: 'sold', limit: 10, cursor });
      ids.push(...page.items.map((pet) => pet.id));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(ids).toEqual(soldIds);
  });

  it('shares its cursors with pets.list, which returns the bare array and the Link', async () => {
    const { caller } = callerWith();
    const page = await caller.pets.listPage({ status: 'sold', limit: 5 });
    const listed = callerWith();
    const items = await listed.caller.pets.list({ status: 'sold', limit: 5 });
    expect(items).toEqual(page.items);
    expect(listed.ctx.responseHeaders.link).toBe(
      `<http://pets.test/v1/pets?limit=5&status=sold&cursor=${page.nextCursor ?? ''}>; rel="next"`,
    );
    const second = await caller.pets.list({
      status: 'sold',
      limit: 5,
      cursor: page.nextCursor ?? '',
    });
    expect(second.map((pet) => pet.id)).toEqual(soldIds.slice(5, 10));
  });

  it('sets no Link on the last page', async () => {
    const { caller, ctx } = callerWith();
    await caller.pets.list({ status: 'sold', limit: 100 });
    expect(ctx.responseHeaders.link).toBeUndefined();
  });

  it('refuses a cursor signed with another secret', async () => {
    const page = await callerWith('another-secret-of-at-least-32-chars!').caller.pets.listPage({
      limit: 1,
    });
    const error = await rejection(
      callerWith().caller.pets.listPage({ limit: 1, cursor: page.nextCursor ?? '' }),
    );
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(/^Invalid cursor: altered or not issued by this service/);
  });

  it('refuses a cursor issued for another status, naming both filters', async () => {
    const { caller } = callerWith();
    const page = await caller.pets.listPage({ status: 'sold', limit: 1 });
    const error = await rejection(
      caller.pets.listPage({ status: 'available', limit: 1, cursor: page.nextCursor ?? '' }),
    );
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toBe(
      'Invalid cursor: was issued for status=sold; this request has status=available',
    );
  });

  it('is closed to anonymous callers', async () => {
    const ctx = createContextInner({
      db: database.handle.db,
      principal: null,
      baseUrl: 'http://pets.test/v1',
    });
    const error = await rejection(createCaller(ctx).pets.listPage({}));
    expect(error.code).toBe('UNAUTHORIZED');
  });
});
