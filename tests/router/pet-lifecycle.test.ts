import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPet, type PetStatus } from '../../db/queries/pets.js';
import type { Principal } from '../../server/domain/auth/authenticator.js';
import { callerFor, rejection } from '../helpers/caller.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { newPet, reader, writer } from '../helpers/factories.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const as = (principal: Principal, ifMatch?: string) =>
  callerFor({ db: database.handle.db, principal, ifMatch });

async function petWith(status: PetStatus) {
  return as(writer).caller.pets.create(newPet({ status }));
}

const version = async (petId: number) => (await findPet(database.handle.db, petId))?.version;

const ALLOWED: [PetStatus, PetStatus][] = [
  ['available', 'pending'],
  ['available', 'sold'],
  ['pending', 'available'],
  ['pending', 'sold'],
];
const REFUSED: [PetStatus, PetStatus][] = [
  ['sold', 'available'],
  ['sold', 'pending'],
];

describe('pets.update', () => {
  it.each(ALLOWED)('moves a pet from %s to %s, one version on', async (from, to) => {
    const pet = await petWith(from);
    const { caller, ctx } = as(writer);
    await expect(caller.pets.update({ petId: pet.id, status: to })).resolves.toEqual({
      ...pet,
      status: to,
    });
    expect(await version(pet.id)).toBe(2);
    expect(ctx.responseHeaders.etag).toBe(`"${pet.id}.2"`);
  });

  it.each(REFUSED)('refuses %s to %s with 409 naming both, changing nothing', async (from, to) => {
    const pet = await petWith(from);
    const error = await rejection(
      as(writer).caller.pets.update({ petId: pet.id, status: to, name: 'Not renamed' }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(`from ${from} to ${to}`);
    expect(await findPet(database.handle.db, pet.id)).toEqual({ ...pet, version: 1 });
  });

  it('treats the same status, or the same values, as no change: the version stays', async () => {
    const pet = await petWith('sold');
    const { caller, ctx } = as(writer);
    await expect(
      caller.pets.update({ petId: pet.id, status: 'sold', name: pet.name }),
    ).resolves.toEqual(pet);
    expect(ctx.responseHeaders.etag).toBe(`"${pet.id}.1"`);
  });

  it('changes only the fields the patch names', async () => {
    const pet = await petWith('available');
    const renamed = await as(writer).caller.pets.update({ petId: pet.id, name: 'Renamed' });
    expect(renamed).toEqual({ ...pet, name: 'Renamed' });
    const moved = await as(writer).caller.pets.update({ petId: pet.id, categoryId: 99 });
    expect(moved).toEqual({ ...pet, name: 'Renamed', categoryId: 99 });
    expect(await version(pet.id)).toBe(3);
  });

  it.each([
    ['an empty patch', {}],
    ['null', { name: null }],
    ['an id', { id: 5 }],
    ['an unknown field', { colour: 'brown' }],
    ['an invalid status', { status: 'lost' }],
    ['a blank name', { name: '   ' }],
  ])('refuses %s with 400', async (_, patch) => {
    const pet = await petWith('available');
    const error = await rejection(
      as(writer).caller.pets.update({ petId: pet.id, ...patch } as never),
    );
    expect(error.code).toBe('BAD_REQUEST');
  });

  it('answers 404 for an unknown pet and 403 for a read-only key', async () => {
    expect((await rejection(as(writer).caller.pets.update({ petId: 9e6, name: 'x' }))).code).toBe(
      'NOT_FOUND',
    );
    const pet = await petWith('available');
    const forbidden = await rejection(as(reader).caller.pets.update({ petId: pet.id, name: 'x' }));
    expect(forbidden.code).toBe('FORBIDDEN');
  });

  it('checks If-Match against the current version before changing anything', async () => {
    const pet = await petWith('available');
    const stale = await rejection(
      as(writer, '"0.0"').caller.pets.update({ petId: pet.id, status: 'sold' }),
    );
    expect(stale.code).toBe('PRECONDITION_FAILED');
    expect((await findPet(database.handle.db, pet.id))?.status).toBe('available');
    const current = `"${pet.id}.1"`;
    await expect(
      as(writer, `"x", ${current}`).caller.pets.update({ petId: pet.id, status: 'sold' }),
    ).resolves.toMatchObject({ status: 'sold' });
    const missing = await rejection(as(writer, '*').caller.pets.update({ petId: 9e6, name: 'x' }));
    expect(missing.code).toBe('PRECONDITION_FAILED');
  });

  it('refuses a status change while an order holds the pet, but not a new name', async () => {
    const pet = await petWith('available');
    await as(writer).caller.orders.place({ petId: pet.id });
    const error = await rejection(
      as(writer).caller.pets.update({ petId: pet.id, status: 'available' }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toMatch(/open order/);
    await expect(
      as(writer).caller.pets.update({ petId: pet.id, status: 'pending', name: 'Held' }),
    ).resolves.toMatchObject({ status: 'pending', name: 'Held' });
  });
});

describe('pets.delete', () => {
  it('deletes once: the pet is gone from get and lists, and a second delete is 404', async () => {
    const pet = await petWith('available');
    await expect(as(writer).caller.pets.delete({ petId: pet.id })).resolves.toBeUndefined();
    expect((await rejection(as(writer).caller.pets.get({ petId: pet.id }))).code).toBe('NOT_FOUND');
    const listed = await as(writer).caller.pets.list({ limit: 100, status: 'available' });
    expect(listed.map((item) => item.id)).not.toContain(pet.id);
    expect((await rejection(as(writer).caller.pets.delete({ petId: pet.id }))).code).toBe(
      'NOT_FOUND',
    );
    expect(
      (await rejection(as(writer).caller.pets.update({ petId: pet.id, name: 'x' }))).code,
    ).toBe('NOT_FOUND');
  });

  it('never reuses the id of a deleted pet', async () => {
    const pet = await petWith('available');
    await as(writer).caller.pets.delete({ petId: pet.id });
    expect((await petWith('available')).id).toBeGreaterThan(pet.id);
  });

  it('refuses while an order holds the pet, and checks If-Match', async () => {
    const pet = await petWith('available');
    const stale = await rejection(as(writer, '"1.0"').caller.pets.delete({ petId: pet.id }));
    expect(stale.code).toBe('PRECONDITION_FAILED');
    await as(writer).caller.orders.place({ petId: pet.id });
    const held = await rejection(as(writer).caller.pets.delete({ petId: pet.id }));
    expect(held.code).toBe('CONFLICT');
    expect(await findPet(database.handle.db, pet.id)).toBeDefined();
  });

  it('needs the write scope', async () => {
    const pet = await petWith('available');
    expect((await rejection(as(reader).caller.pets.delete({ petId: pet.id }))).code).toBe(
      'FORBIDDEN',
    );
  });
});
