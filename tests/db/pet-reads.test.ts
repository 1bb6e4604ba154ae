import { and, asc, eq, gt } from 'drizzle-orm';
import { transaction } from '../../db/runner.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPets } from '../../db/queries/pet-pages.js';
import { findPet, insertPets, type NewPetRow, type PetStatus } from '../../db/queries/pets.js';
import { pets } from '../../db/schema.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;

const STATUSES: PetStatus[] = ['available', 'pending', 'sold'];

beforeAll(async () => {
  database = await createTestDatabase();
  const seed: NewPetRow[] = Array.from({ length: 30 }, (_, index) => ({
    name: `Pet ${index} ü`,
    categoryId: 1 + (index % 4),
    status: STATUSES[index % 3] ?? 'available',
  }));
  await insertPets(database.handle.db, seed);
});
afterAll(() => database.destroy());

/** The same page read through drizzle's own query and row mapping. */
function drizzlePage(options: { limit: number; status?: PetStatus; after: number }) {
  const { limit, status, after } = options;
  return database.handle.db
    .select({ id: pets.id, name: pets.name, categoryId: pets.categoryId, status: pets.status })
    .from(pets)
    .where(status ? and(eq(pets.status, status), gt(pets.id, after)) : gt(pets.id, after))
    .orderBy(asc(pets.id))
    .limit(limit);
}

describe('listPets', () => {
  it.each([
    { limit: 10, after: 0 },
    { limit: 7, after: 12 },
    { limit: 5, status: 'pending' as const, after: 0 },
    { limit: 100, status: 'sold' as const, after: 9 },
    { limit: 3, after: 28 },
  ])('answers what drizzle maps, field for field: %o', async (options) => {
    const page = await listPets(database.handle.db, options);
    expect(page).toEqual(await drizzlePage(options));
    expect(page.length).toBeGreaterThan(0);
  });

  it('answers an empty page past the last id', async () => {
    expect(await listPets(database.handle.db, { limit: 5, after: 1_000 })).toEqual([]);
  });

  it('answers ids and category ids as numbers, whatever the driver returns for bigint', async () => {
    const [first] = await listPets(database.handle.db, { limit: 1 });
    expect(typeof first?.id).toBe('number');
    expect(typeof first?.categoryId).toBe('number');
  });
});

describe('findPet', () => {
  it('answers the same pet on the database and in a transaction, as drizzle reads it', async () => {
    const { db } = database.handle;
    for (const id of [1, 2, 17, 30]) {
      const direct = await findPet(db, id);
      const inTransaction = await transaction(db, (tx) => findPet(tx, id));
      expect(direct).toEqual(inTransaction);
      expect(direct).toEqual({
        ...(await drizzlePage({ limit: 1, after: id - 1 }))[0],
        version: 1,
      });
      expect(typeof direct?.id).toBe('number');
      expect(typeof direct?.categoryId).toBe('number');
    }
  });

  it('answers undefined for an id no pet has, on both paths', async () => {
    const { db } = database.handle;
    expect(await findPet(db, 1_000)).toBeUndefined();
    expect(await transaction(db, (tx) => findPet(tx, 1_000))).toBeUndefined();
  });
});
