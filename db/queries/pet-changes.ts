import { sql } from 'drizzle-orm';
import { statementOf, type Runner } from '../runner.js';
import { PET_COLUMNS, toVersionedPet, type NewPetRow, type VersionedPetRow } from './pets.js';

const lockStatement = statementOf(sql`
  select ${sql.raw(PET_COLUMNS)} from pets
  where id = ${sql.placeholder('id')} and deleted_at is null
  for update`);

/**
 * Locks one live pet until the transaction ends and reads it; undefined when there is none.
 * Every change to a pet (update, delete, an order placed or settled) takes this lock first, so
 * changes to one pet happen one after another and each sees the one before.
 */
export async function lockPet(tx: Runner, id: number): Promise<VersionedPetRow | undefined> {
  const [row] = await tx.rows(lockStatement, { id });
  return row && toVersionedPet(row);
}

/** A field left null keeps its value: one statement serves every combination of changes. */
const updateStatement = statementOf(sql`
  update pets set
    name = coalesce(${sql.placeholder('name')}::text, name),
    category_id = coalesce(${sql.placeholder('categoryId')}::bigint, category_id),
    status = coalesce(${sql.placeholder('status')}::pet_status, status),
    version = version + 1
  where id = ${sql.placeholder('id')} and deleted_at is null
  returning ${sql.raw(PET_COLUMNS)}`);

/** Writes changed fields of a pet locked by lockPet, one version later. */
export async function updatePetRow(
  tx: Runner,
  id: number,
  changes: Partial<NewPetRow>,
): Promise<VersionedPetRow> {
  const [row] = await tx.rows(updateStatement, {
    id,
    name: changes.name ?? null,
    categoryId: changes.categoryId ?? null,
    status: changes.status ?? null,
  });
  if (!row) throw new Error(`Pet ${id} was locked but is gone`);
  return toVersionedPet(row);
}

const deleteStatement = statementOf(sql`
  update pets set deleted_at = now(), version = version + 1
  where id = ${sql.placeholder('id')} and deleted_at is null`);

/** Deletes a pet locked by lockPet: the row stays, so its id is never reused. */
export async function deletePetRow(tx: Runner, id: number): Promise<void> {
  await tx.rows(deleteStatement, { id });
}
