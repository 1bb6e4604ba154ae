import { and, asc, eq, fillPlaceholders, gt, isNull, sql, type SQL } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { arrayRowReader, findArrayRowReader } from '../array-rows.js';
import { executeRows, type Database } from '../database.js';
import { EVENT_ORDER_LOCK } from './events.js';
import { DATABASE_CASING, pets } from '../schema.js';

export type PetStatus = (typeof pets.status.enumValues)[number];

/** A pet as the API shows it: the columns every pet read selects. */
export type PetRow = Pick<typeof pets.$inferSelect, 'id' | 'name' | 'categoryId' | 'status'>;

export type NewPetRow = Omit<PetRow, 'id'>;

/** A pet with its version, for answers that carry one pet and its ETag. */
export type VersionedPetRow = PetRow & Pick<typeof pets.$inferSelect, 'version'>;

/** The select list of every pet read, in this order: rows read as arrays are mapped by position. */
const petColumns = {
  id: pets.id,
  name: pets.name,
  categoryId: pets.categoryId,
  status: pets.status,
};

/**
 * The one mapping from a pets row to a PetRow, whichever way the row was read. bigint comes as
 * text from postgres.js and as a number from PGlite; ids stay below 2^53.
 */
function toPet(id: unknown, name: unknown, categoryId: unknown, status: unknown): PetRow {
  return {
    id: Number(id),
    name: name as string,
    categoryId: Number(categoryId),
    status: status as PetStatus,
  };
}

const fromArray = (row: unknown[]): PetRow => toPet(row[0], row[1], row[2], row[3]);

const versionedFromArray = (row: unknown[]): VersionedPetRow => ({
  ...fromArray(row),
  version: Number(row[4]),
});

/** Pets that have not been deleted. */
export const livePet = isNull(pets.deletedAt);

/** A page statement built once by drizzle; listPets runs it through the driver itself. */
function pageStatement(where: SQL | undefined) {
  return new QueryBuilder({ casing: DATABASE_CASING })
    .select(petColumns)
    .from(pets)
    .where(where)
    .orderBy(asc(pets.id))
    .limit(sql.placeholder('limit'))
    .toSQL();
}

const afterId = gt(pets.id, sql.placeholder('after'));
const pageStatements = {
  anyStatus: pageStatement(and(livePet, afterId)),
  oneStatus: pageStatement(and(eq(pets.status, sql.placeholder('status')), livePet, afterId)),
};

/**
 * One keyset page: pets after `after` in id order, optionally of one status. `db` is a
 * database from openDatabase, not a transaction: a page is read on its own, as arrays, because
 * drizzle's generic row mapping was the largest cost of a 100-row page (docs/performance.md).
 */
export async function listPets(
  db: Database,
  options: { limit: number; status?: PetStatus | undefined; after?: number | undefined },
): Promise<PetRow[]> {
  const { limit, status, after = 0 } = options;
  const statement = status ? pageStatements.oneStatus : pageStatements.anyStatus;
  const rows = await arrayRowReader(db)(
    statement.sql,
    fillPlaceholders(statement.params, { status, after, limit }),
  );
  // A loop, not rows.map: postgres.js answers an Array subclass, whose map is several times slower.
  const page = new Array<PetRow>(rows.length);
  let index = 0;
  for (const row of rows) page[index++] = fromArray(row);
  return page;
}

/** The select list of a pet read with its version, in this order. */
export const versionedPetColumns = { ...petColumns, version: pets.version };

const byIdStatement = new QueryBuilder({ casing: DATABASE_CASING })
  .select(versionedPetColumns)
  .from(pets)
  .where(and(eq(pets.id, sql.placeholder('id')), livePet))
  .limit(1)
  .toSQL();

/** One live pet by id, with its version; undefined when there is none or it was deleted. */
export async function findPet(db: Database, id: number): Promise<VersionedPetRow | undefined> {
  const reader = findArrayRowReader(db);
  if (!reader) {
    const [pet] = await db
      .select(versionedPetColumns)
      .from(pets)
      .where(and(eq(pets.id, id), livePet))
      .limit(1);
    return pet;
  }
  const [row] = await reader(byIdStatement.sql, fillPlaceholders(byIdStatement.params, { id }));
  return row && versionedFromArray(row);
}

/** The same on every instance, and distinct from the migration lock in db/migrate.ts. */
const PET_ID_ORDER_LOCK = 7_246_110_843;

/**
 * Inserts one pet, serialised with every other insert until commit. Without that, two
 * concurrent creates can commit out of id order: a reader paging by id could pass id 11 while
 * id 10 is still uncommitted and never see it. The lock is taken in the same statement, before
 * the id is drawn, and a transaction-scoped lock lasts until commit: so ids become visible in
 * ascending order at the cost of one round trip. Inside a caller's transaction the lock lasts
 * until that transaction ends.
 */
export async function insertPet(db: Database, pet: NewPetRow): Promise<VersionedPetRow> {
  const [created] = await insertPets(db, [pet]);
  if (!created) throw new Error('INSERT ... RETURNING returned no row');
  return created;
}

/**
 * Inserts several pets in one statement under the same lock as insertPet: one commit, so the
 * whole group becomes visible at once and commit order still matches id order. The same
 * statement appends a `pet.created` event for each (its data the pet as the API shows it; see
 * appendEvents for the event lock). The result is in input order: each input gets a row with
 * its own fields.
 */
export async function insertPets(
  db: Database,
  newPets: readonly NewPetRow[],
): Promise<VersionedPetRow[]> {
  const rows = await executeRows(
    db,
    sql`
    with id_order as (select pg_advisory_xact_lock(${PET_ID_ORDER_LOCK})),
    input as (
      select e.pet, e.ord from jsonb_array_elements(${JSON.stringify(newPets)}::jsonb)
        with ordinality as e(pet, ord)
    ),
    inserted as (
      insert into pets (name, category_id, status)
      select pet->>'name', (pet->>'categoryId')::bigint, (pet->>'status')::pet_status
      from id_order, input order by input.ord
      returning id, name, category_id, status, version
    ),
    event_order as (select pg_advisory_xact_lock_shared(${EVENT_ORDER_LOCK}) from id_order),
    appended as (
      insert into events (type, data)
      select 'pet.created', jsonb_build_object(
        'id', i.id, 'name', i.name, 'categoryId', i.category_id, 'status', i.status)
      from event_order, inserted as i order by i.id
    )
    select * from inserted`,
  );
  const created = rows.map((row) => ({
    ...toPet(row.id, row.name, row.category_id, row.status),
    version: Number(row.version),
  }));
  return inInputOrder(newPets, created);
}

const fieldsKey = (pet: NewPetRow) => JSON.stringify([pet.name, pet.categoryId, pet.status]);

/** RETURNING promises no order; pets with equal fields are interchangeable, so match on them. */
function inInputOrder<T extends PetRow>(newPets: readonly NewPetRow[], created: T[]): T[] {
  const byFields = new Map<string, T[]>();
  for (const row of created.sort((a, b) => a.id - b.id)) {
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
