import { and, asc, eq, gt } from 'drizzle-orm';
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

export async function insertPet(db: Database, pet: NewPetRow): Promise<PetRow> {
  const rows = await db.insert(pets).values(pet).returning(petColumns);
  const created = rows[0];
  if (!created) throw new Error('INSERT ... RETURNING returned no row');
  return created;
}
