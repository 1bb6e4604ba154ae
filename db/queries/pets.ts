import { and, eq, isNull, sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { runnerFor, statementOf, type Queryable } from '../runner.js';
import { DATABASE_CASING, pets } from '../schema.js';
import { EVENT_ORDER_LOCK } from './events.js';

export type PetStatus = (typeof pets.status.enumValues)[number];

/** A pet as the API shows it: the columns every pet read selects. */
export type PetRow = Pick<typeof pets.$inferSelect, 'id' | 'name' | 'categoryId' | 'status'>;

export type NewPetRow = Omit<PetRow, 'id'>;

/** A pet with its version, for answers that carry one pet and its ETag. */
export type VersionedPetRow = PetRow & Pick<typeof pets.$inferSelect, 'version'>;

/**
 * The select list of every pet read, in this order, then the version where one is read: rows
 * come as arrays and are mapped by position, here and nowhere else. bigint comes as text from
 * postgres.js and as a number from PGlite; ids stay below 2^53.
 */
export const petColumns = {
  id: pets.id,
  name: pets.name,
  categoryId: pets.categoryId,
  status: pets.status,
};
const versionedPetColumns = { ...petColumns, version: pets.version };
export const PET_COLUMNS = 'id, name, category_id, status, version';

export function toPet(row: unknown[]): PetRow {
  return {
    id: Number(row[0]),
    name: row[1] as string,
    categoryId: Number(row[2]),
    status: row[3] as PetStatus,
  };
}

export function toVersionedPet(row: unknown[]): VersionedPetRow {
  return { ...toPet(row), version: Number(row[4]) };
}

/** Pets that have not been deleted. */
const livePet = isNull(pets.deletedAt);
const builder = new QueryBuilder({ casing: DATABASE_CASING });

const byId = statementOf(
  builder
    .select(versionedPetColumns)
    .from(pets)
    .where(and(eq(pets.id, sql.placeholder('id')), livePet))
    .limit(1),
  { quickRead: true },
);

/** One live pet by id, with its version; undefined when there is none or it was deleted. */
export async function findPet(on: Queryable, id: number): Promise<VersionedPetRow | undefined> {
  const [row] = await runnerFor(on).rows(byId, { id });
  return row && toVersionedPet(row);
}

/** The same on every instance, and distinct from the migration lock in db/migrate.ts. */
const PET_ID_ORDER_LOCK = 7_246_110_843;

/**
 * Inserts pets in one statement, serialised with every other insert until commit: without
 * that, two concurrent creates can commit out of id order, and a reader paging by id could
 * pass id 11 while id 10 is still uncommitted and never see it. The lock is taken in the same
 * statement, before the ids are drawn, and held until commit, so the whole group becomes
 * visible at once and in id order. The same statement appends a `pet.created` event for each,
 * its data built in SQL as toPet shapes a pet (see appendEvents for the event lock).
 */
const insertStatement = statementOf(sql`
  with id_order as (select pg_advisory_xact_lock(${PET_ID_ORDER_LOCK})),
  input as (
    select e.pet, e.ord from jsonb_array_elements(${sql.placeholder('pets')}::text::jsonb)
      with ordinality as e(pet, ord)
  ),
  inserted as (
    insert into pets (name, category_id, status)
    select pet->>'name', (pet->>'categoryId')::bigint, (pet->>'status')::pet_status
    from id_order, input order by input.ord
    returning ${sql.raw(PET_COLUMNS)}
  ),
  event_order as (select pg_advisory_xact_lock_shared(${EVENT_ORDER_LOCK}) from id_order),
  appended as (
    -- pet.created's data is the pet as every read shows it (toPet's fields; the events test
    -- holds it to GET /v1/pets?id=), built in the insert's own statement: from petBody it
    -- would need the rows back and a second statement while the id lock is held.
    insert into events (type, data)
    select 'pet.created', jsonb_build_object(
      'id', i.id, 'name', i.name, 'categoryId', i.category_id, 'status', i.status)
    from event_order, inserted as i order by i.id
  )
  select ${sql.raw(PET_COLUMNS)} from inserted order by id`);

/** Inserts several pets; the result is in input order, each input with a row of its own fields. */
export async function insertPets(
  on: Queryable,
  newPets: readonly NewPetRow[],
): Promise<VersionedPetRow[]> {
  const rows = await runnerFor(on).rows(insertStatement, { pets: JSON.stringify(newPets) });
  return inInputOrder(newPets, rows.map(toVersionedPet));
}

export async function insertPet(on: Queryable, pet: NewPetRow): Promise<VersionedPetRow> {
  const [created] = await insertPets(on, [pet]);
  if (!created) throw new Error('INSERT ... RETURNING returned no row');
  return created;
}

const fieldsKey = (pet: NewPetRow) => JSON.stringify([pet.name, pet.categoryId, pet.status]);

/** Rows come in id order; pets with equal fields are interchangeable, so match on them. */
function inInputOrder<T extends PetRow>(newPets: readonly NewPetRow[], created: T[]): T[] {
  const byFields = new Map<string, T[]>();
  for (const row of created) {
    const key = fieldsKey(row);
    const group = byFields.get(key);
    if (group) group.push(row);
    else byFields.set(key, [row]);
  }
  return newPets.map((pet) => {
    const row = byFields.get(fieldsKey(pet))?.shift();
    if (!row) throw new Error('INSERT ... RETURNING did not return every row');
    return row;
  });
}
