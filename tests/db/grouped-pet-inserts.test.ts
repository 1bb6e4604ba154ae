import { inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRefusedData } from '../../db/errors.js';
import { insertPetGrouped } from '../../db/queries/grouped-pet-inserts.js';
import { insertPets, type NewPetRow } from '../../db/queries/pets.js';
import { pets } from '../../db/schema.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const named = (name: string, categoryId = 1): NewPetRow => ({
  name,
  categoryId,
  status: 'available',
});

/** The inserting transaction of each row: rows written by one statement share it. */
async function transactionsOf(ids: number[]): Promise<Set<string>> {
  const rows = await database.handle.db
    .select({ xmin: sql<string>`xmin::text` })
    .from(pets)
    .where(inArray(pets.id, ids));
  return new Set(rows.map((row) => row.xmin));
}

describe('insertPets', () => {
  it('gives each input a row with its own fields, in input order', async () => {
    const input = [named('Rex', 3), named('Ada', 1), named('Rex', 3), named('Bo', 2)];
    const created = await insertPets(database.handle.db, input);
    expect(created.map(({ name, categoryId }) => ({ name, categoryId }))).toEqual(
      input.map(({ name, categoryId }) => ({ name, categoryId })),
    );
    expect(new Set(created.map((pet) => pet.id)).size).toBe(input.length);
  });
});

describe('insertPetGrouped', () => {
  it('writes creates that arrive together in one statement, each answered with its own pet', async () => {
    const names = Array.from({ length: 20 }, (_, index) => `Grouped ${index}`);
    const created = await Promise.all(
      names.map((name) => insertPetGrouped(database.handle.db, named(name))),
    );
    expect(created.map((pet) => pet.name)).toEqual(names);
    expect((await transactionsOf(created.map((pet) => pet.id))).size).toBe(1);
  });

  it('groups the creates that arrive while a group is being written', async () => {
    const first = insertPetGrouped(database.handle.db, named('Leader'));
    // Queued after the first statement was sent, so they cannot join it.
    await Promise.resolve();
    await Promise.resolve();
    const followers = Array.from({ length: 5 }, (_, index) =>
      insertPetGrouped(database.handle.db, named(`Follower ${index}`)),
    );
    const leader = await first;
    const rest = await Promise.all(followers);
    const restTransactions = await transactionsOf(rest.map((pet) => pet.id));
    expect(restTransactions.size).toBe(1);
    expect(restTransactions.has([...(await transactionsOf([leader.id]))][0] ?? '')).toBe(false);
    expect(Math.min(...rest.map((pet) => pet.id))).toBeGreaterThan(leader.id);
  });

  it('fails only the request whose row the database refuses', async () => {
    const results = await Promise.allSettled([
      insertPetGrouped(database.handle.db, named('Good before')),
      // The schema refuses a category id below 1 (pets_category_id_positive).
      insertPetGrouped(database.handle.db, named('Refused', -1)),
      insertPetGrouped(database.handle.db, named('Good after')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const [, refused] = results;
    expect(isRefusedData(refused.status === 'rejected' ? refused.reason : undefined)).toBe(true);
    const stored = await database.handle.db
      .select({ name: pets.name })
      .from(pets)
      .where(inArray(pets.name, ['Good before', 'Refused', 'Good after']));
    expect(stored.map((row) => row.name).sort()).toEqual(['Good after', 'Good before']);
  });
});
