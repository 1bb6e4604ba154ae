import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../database.js';
import { pets } from '../schema.js';
import { livePet, versionedPetColumns, type NewPetRow, type VersionedPetRow } from './pets.js';

/**
 * Locks one live pet until the transaction ends and reads it; undefined when there is none.
 * Every change to a pet (update, delete, an order placed or settled) takes this lock first, so
 * changes to one pet happen one after another and each sees the one before.
 */
export async function lockPet(tx: Database, id: number): Promise<VersionedPetRow | undefined> {
  const [pet] = await tx
    .select(versionedPetColumns)
    .from(pets)
    .where(and(eq(pets.id, id), livePet))
    .for('update');
  return pet;
}

/** Writes changed fields of a pet locked by lockPet, one version later. */
export async function updatePetRow(
  tx: Database,
  id: number,
  changes: Partial<NewPetRow>,
): Promise<VersionedPetRow> {
  const [pet] = await tx
    .update(pets)
    .set({ ...changes, version: sql`${pets.version} + 1` })
    .where(and(eq(pets.id, id), livePet))
    .returning(versionedPetColumns);
  if (!pet) throw new Error(`Pet ${id} was locked but is gone`);
  return pet;
}

/** Deletes a pet locked by lockPet: the row stays, so its id is never reused. */
export async function deletePetRow(tx: Database, id: number): Promise<void> {
  await tx
    .update(pets)
    .set({ deletedAt: sql`now()`, version: sql`${pets.version} + 1` })
    .where(and(eq(pets.id, id), livePet));
}
