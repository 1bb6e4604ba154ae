import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { pets } from '../schema.js';

export type PetStatus = (typeof pets.status.enumValues)[number];

export interface PetRow {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
}

export interface NewPetRow {
  name: string;
  categoryId: number;
  status: PetStatus;
}

const petColumns = {
  id: pets.id,
  name: pets.name,
  categoryId: pets.categoryId,
  status: pets.status,
};

/** One keyset page: pets after `after` in id order, optionally of one status. */
export function listPets(
  db: Database,
  options: { limit: number; status?: PetStatus | undefined; after?: number | undefined },
): Promise<PetRow[]> {
  const { limit, status, after = 0 } = options;
  return db
    .select(petColumns)
    .from(pets)
    .where(and(status ? eq(pets.status, status) : undefined, gt(pets.id, after)))
    .orderBy(asc(pets.id))
    .limit(limit);
}

export async function findPet(db: Database, id: number): Promise<PetRow | undefined> {
  const rows = await db.select(petColumns).from(pets).where(eq(pets.id, id)).limit(1);
  return rows[0];
}

/** The same on every instance, and distinct from the migration lock in db/migrate.ts. */
const PET_ID_ORDER_LOCK = 7_246_110_843;

/**
 * Inserts one pet, serialised with every other insert until commit. Without that, two
 * concurrent creates can commit out of id order: a reader paging by id could pass id 11 while
 * id 10 is still uncommitted and never see it. Holding the lock from id allocation to commit
 * makes ids visible in ascending order, which is what keyset pagination needs. Inside a caller's
 * transaction this is a savepoint and the lock lasts until that transaction ends.
 */
export function insertPet(db: Database, pet: NewPetRow): Promise<PetRow> {
  return db.transaction(async (tx) => {
    await tx
      .select({ locked: sql`pg_advisory_xact_lock(${PET_ID_ORDER_LOCK})` })
      .from(sql`(values (1)) as one`);
    const rows = await tx.insert(pets).values(pet).returning(petColumns);
    const created = rows[0];
    if (!created) throw new Error('INSERT ... RETURNING returned no row');
    return created;
  });
}
