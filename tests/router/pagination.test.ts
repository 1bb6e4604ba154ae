import { gte, sql } from 'drizzle-orm';
import { transaction } from '../../db/runner.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertPet, type PetRow } from '../../db/queries/pets.js';
import { pets } from '../../db/schema.js';
import type { Principal } from '../../server/domain/auth/authenticator.js';
import { createContextInner } from '../../server/operations/context.js';
import { createCaller } from '../../server/surfaces/trpc/router.js';
import { callerFor, rejection } from '../helpers/caller.js';
import { createTestDatabase, type TestDatabase, describeOnPostgres } from '../helpers/database.js';
import { insertManyPets, newPet, reader, writer } from '../helpers/factories.js';
import { walkCursors } from '../helpers/pages.js';

let database: TestDatabase;
let soldIds: number[];

beforeAll(async () => {
  database = await createTestDatabase();
  await insertManyPets(database.handle.db, 30, () => 'available');
  soldIds = await insertManyPets(database.handle.db, 25, () => 'sold');
});
afterAll(() => database.destroy());

function callerWith(cursorSecret?: string, principal: Principal = reader) {
  return callerFor({ db: database.handle.db, principal, cursorSecret });
}

describe('pets.listPage', () => {
  it('walks every pet of a status once, ending with a null nextCursor', async () => {
    const { caller } = callerWith();
    const { items } = await walkCursors((cursor) =>
      caller.pets.listPage({ status: 'sold', limit: 10, cursor }),
    );
    expect(items.map((pet) => pet.id)).toEqual(soldIds);
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

  it('binds a filtered cursor to the digest its filters have always had', async () => {
    // Pinned: a cursor a client holds stays valid only while its filters hash as they did.
    const boundFilter = (cursor: string | null) =>
      (
        JSON.parse(Buffer.from(cursor?.split('.')[0] ?? '', 'base64url').toString()) as {
          s: string;
        }
      ).s;
    const { caller } = callerWith();
    const byCategory = await caller.pets.listPage({ categoryId: 1, limit: 1 });
    expect(boundFilter(byCategory.nextCursor)).toBe('#4fY7mvKkjkfGrJTzj2Op4b');
    const combined = await caller.pets.listPage({
      status: 'available',
      categoryId: 2,
      name: 'bulk',
      limit: 1,
    });
    expect(boundFilter(combined.nextCursor)).toBe('#zcgLvmOJd7WHtHr_cI5y2n');
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

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** Until some session waits for an advisory lock: PostgreSQL signals nothing else. */
async function untilAdvisoryLockWaiter(): Promise<void> {
  await vi.waitFor(
    async () => {
      const [row] = await database.handle.db
        .select({ waiting: sql<number>`count(*)::int` })
        .from(sql`pg_locks`)
        .where(sql`locktype = 'advisory' and not granted`);
      expect(row?.waiting ?? 0, 'sessions waiting for an advisory lock').toBeGreaterThan(0);
    },
    { timeout: 5_000, interval: 10 },
  );
}

// Only PostgreSQL runs transactions side by side; PGlite runs one at a time, so there a later
// create can never commit before an earlier one and this race cannot be staged.
describeOnPostgres('pets.listPage while creates overlap', () => {
  it('never shows a pet while a lower id is still uncommitted', async () => {
    const db = database.handle.db;
    const gate = deferred<undefined>();
    const allocated = deferred<PetRow>();
    const slow = transaction(db, async (tx) => {
      allocated.resolve(await insertPet(tx, { ...newPet(), status: 'pending' }));
      await gate.promise;
    });
    const first = await allocated.promise;

    const second = callerWith(undefined, writer).caller.pets.create(newPet({ status: 'pending' }));
    await untilAdvisoryLockWaiter();
    const visible = await db.select({ id: pets.id }).from(pets).where(gte(pets.id, first.id));
    expect(visible).toEqual([]);

    gate.resolve(undefined);
    await slow;
    const created = await second;
    expect(created.id).toBeGreaterThan(first.id);
    const page = await callerWith().caller.pets.listPage({ status: 'pending', limit: 100 });
    expect(page.items.map((pet) => pet.id)).toEqual([first.id, created.id]);
  });
});
