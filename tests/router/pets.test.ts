import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../server/domain/auth/authenticator.js';
import { createContextInner } from '../../server/operations/context.js';
import { createCaller } from '../../server/surfaces/trpc/router.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { newPet, reader, writer } from '../helpers/factories.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

function callerAs(principal: Principal | null) {
  const ctx = createContextInner({
    db: database.handle.db,
    principal,
    baseUrl: 'http://pets.test/v1',
  });
  return { caller: createCaller(ctx), ctx };
}

async function expectCode(promise: Promise<unknown>, code: TRPCError['code']) {
  const error: unknown = await promise.then(
    () => undefined,
    (cause: unknown) => cause,
  );
  expect(error).toBeInstanceOf(TRPCError);
  expect((error as TRPCError).code).toBe(code);
  return error as TRPCError;
}

describe('pets.create', () => {
  it('stores the pet, defaults status to available and points Location at it', async () => {
    const { caller, ctx } = callerAs(writer);
    const pet = await caller.pets.create({ name: 'Rex', categoryId: 3 });
    expect(pet).toEqual({
      id: expect.any(Number) as number,
      name: 'Rex',
      categoryId: 3,
      status: 'available',
    });
    expect(ctx.responseHeaders.location).toBe(`http://pets.test/v1/pets/${pet.id}`);
    await expect(caller.pets.get({ petId: pet.id })).resolves.toEqual(pet);
  });

  it('keeps an explicit status', async () => {
    const { caller } = callerAs(writer);
    await expect(caller.pets.create(newPet({ status: 'sold' }))).resolves.toMatchObject({
      status: 'sold',
    });
  });

  it('round-trips unicode names exactly', async () => {
    const { caller } = callerAs(writer);
    for (const name of [
      'Fluffy 🐈‍⬛',
      'שלום',
      'e\u0301',
      '🐕'.repeat(255),
      "Robert'); DROP TABLE pets;--",
    ]) {
      const pet = await caller.pets.create(newPet({ name }));
      expect((await caller.pets.get({ petId: pet.id })).name).toBe(name);
    }
  });

  it.each([
    ['a missing name', { categoryId: 1 }],
    ['an empty name', { name: '', categoryId: 1 }],
    ['a whitespace-only name', { name: ' \t ', categoryId: 1 }],
    ['a NUL in the name', { name: 'a\u0000b', categoryId: 1 }],
    ['a name of 256 characters', { name: 'x'.repeat(256), categoryId: 1 }],
    ['a lone surrogate', { name: 'a\ud800', categoryId: 1 }],
    ['a categoryId given as a string', { name: 'Rex', categoryId: '3' }],
    ['a fractional categoryId', { name: 'Rex', categoryId: 1.5 }],
    ['a categoryId of 0', { name: 'Rex', categoryId: 0 }],
    ['a categoryId past 2^53', { name: 'Rex', categoryId: 2 ** 53 }],
    ['an unknown status', { name: 'Rex', categoryId: 1, status: 'lost' }],
    ['an unknown field', { name: 'Rex', categoryId: 1, colour: 'brown' }],
  ])('rejects %s with BAD_REQUEST', async (_, input) => {
    const { caller } = callerAs(writer);
    await expectCode(caller.pets.create(input as never), 'BAD_REQUEST');
  });

  it('is refused to a read-only key', async () => {
    const { caller } = callerAs(reader);
    await expectCode(caller.pets.create(newPet()), 'FORBIDDEN');
  });

  it('checks authentication before input, so anonymous callers learn nothing about it', async () => {
    const { caller } = callerAs(null);
    await expectCode(caller.pets.create({ bogus: true } as never), 'UNAUTHORIZED');
  });
});

describe('pets.list', () => {
  it('returns pets in ascending id order, at most `limit`, filtered by status', async () => {
    const { caller } = callerAs(writer);
    const created = [];
    for (const status of ['pending', 'sold', 'pending', 'available', 'pending'] as const) {
      created.push(await caller.pets.create(newPet({ status })));
    }
    const all = await caller.pets.list({ limit: 100 });
    expect(all.map((pet) => pet.id)).toEqual([...all.map((pet) => pet.id)].sort((a, b) => a - b));
    const pending = await caller.pets.list({ status: 'pending', limit: 100 });
    expect(pending.every((pet) => pet.status === 'pending')).toBe(true);
    expect(pending.map((pet) => pet.id)).toEqual(
      expect.arrayContaining(
        created.filter((pet) => pet.status === 'pending').map((pet) => pet.id),
      ),
    );
    expect(await caller.pets.list({ limit: 2 })).toHaveLength(2);
  });

  it('returns 20 by default', async () => {
    const { caller } = callerAs(writer);
    for (let i = 0; i < 21; i++) await caller.pets.create(newPet());
    expect(await caller.pets.list({})).toHaveLength(20);
  });

  it.each([0, 101, 1.5])('rejects limit %s', async (limit) => {
    const { caller } = callerAs(reader);
    await expectCode(caller.pets.list({ limit }), 'BAD_REQUEST');
  });

  it('is open to read-only keys and closed to anonymous callers', async () => {
    await expect(callerAs(reader).caller.pets.list({})).resolves.toBeInstanceOf(Array);
    await expectCode(callerAs(null).caller.pets.list({}), 'UNAUTHORIZED');
  });
});

describe('pets.get', () => {
  it('names the missing id in NOT_FOUND', async () => {
    const error = await expectCode(
      callerAs(reader).caller.pets.get({ petId: 987654321 }),
      'NOT_FOUND',
    );
    expect(error.message).toBe('No pet with id 987654321');
  });

  it.each([0, -1, 1.5])('rejects petId %s', async (petId) => {
    await expectCode(callerAs(reader).caller.pets.get({ petId }), 'BAD_REQUEST');
  });
});
