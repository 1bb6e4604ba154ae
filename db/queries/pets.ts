import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { executeRows, type Database } from '../client.js';
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

interface RawPetRow extends Record<string, unknown> {
  id: string | number;
  name: string;
  category_id: string | number;
  status: PetStatus;
}

const petColumns = {
  id: pets.id,
  name: pets.name,
  categoryId: pets.categoryId,
  status: pets.status,
};

/**
 * Named prepared statements, built once per database handle: drizzle sends a query unnamed
 * unless it is prepared, and postgres.js then pays a parse on every call.
 */
function prepareReads(db: Database) {
  const after = sql.placeholder('after');
  const limit = sql.placeholder('limit');
  return {
    page: db
      .select(petColumns)
      .from(pets)
      .where(gt(pets.id, after))
      .orderBy(asc(pets.id))
      .limit(limit)
      .prepare('pets_page'),
    pageOfStatus: db
      .select(petColumns)
      .from(pets)
      .where(and(eq(pets.status, sql.placeholder('status')), gt(pets.id, after)))
      .orderBy(asc(pets.id))
      .limit(limit)
      .prepare('pets_page_of_status'),
    byId: db
      .select(petColumns)
      .from(pets)
      .where(eq(pets.id, sql.placeholder('id')))
      .limit(1)
      .prepare('pet_by_id'),
  };
}

const preparedReads = new WeakMap<Database, ReturnType<typeof prepareReads>>();

function readsFor(db: Database) {
  let reads = preparedReads.get(db);
  if (!reads) {
    reads = prepareReads(db);
    preparedReads.set(db, reads);
  }
  return reads;
}

/** One keyset page: pets after `after` in id order, optionally of one status. */
export function listPets(
  db: Database,
  options: { limit: number; status?: PetStatus | undefined; after?: number | undefined },
): Promise<PetRow[]> {
  const { limit, status, after = 0 } = options;
  const reads = readsFor(db);
  return status
    ? reads.pageOfStatus.execute({ status, after, limit })
    : reads.page.execute({ after, limit });
}

export async function findPet(db: Database, id: number): Promise<PetRow | undefined> {
  const rows = await readsFor(db).byId.execute({ id });
  return rows[0];
}

/** The same on every instance, and distinct from the migration lock in db/migrate.ts. */
const PET_ID_ORDER_LOCK = 7_246_110_843;

function toPetRow(row: RawPetRow): PetRow {
  return {
    id: Number(row.id),
    name: row.name,
    categoryId: Number(row.category_id),
    status: row.status,
  };
}

/**
 * Inserts one pet, serialised with every other insert until commit. Without that, two
 * concurrent creates can commit out of id order: a reader paging by id could pass id 11 while
 * id 10 is still uncommitted and never see it. The lock is taken in the same statement, before
 * the id is drawn, and a transaction-scoped lock lasts until commit: so ids become visible in
 * ascending order at the cost of one round trip. Inside a caller's transaction the lock lasts
 * until that transaction ends.
 */
export async function insertPet(db: Database, pet: NewPetRow): Promise<PetRow> {
  const [created] = await insertPets(db, [pet]);
  if (!created) throw new Error('INSERT ... RETURNING returned no row');
  return created;
}

/**
 * Inserts several pets in one statement under the same lock as insertPet: one commit, so the
 * whole group becomes visible at once and commit order still matches id order. The result is
 * in input order: each input gets a row with its own fields.
 */
export async function insertPets(db: Database, newPets: readonly NewPetRow[]): Promise<PetRow[]> {
  const rows = await executeRows<RawPetRow>(
    db,
    sql`
    with id_order as (select pg_advisory_xact_lock(${PET_ID_ORDER_LOCK})),
    input as (
      select e.pet, e.ord from jsonb_array_elements(${JSON.stringify(newPets)}::jsonb)
        with ordinality as e(pet, ord)
    )
    insert into pets (name, category_id, status)
    select pet->>'name', (pet->>'categoryId')::bigint, (pet->>'status')::pet_status
    from id_order, input order by input.ord
    returning id, name, category_id, status`,
  );
  return inInputOrder(newPets, rows.map(toPetRow));
}

const fieldsKey = (pet: NewPetRow) => JSON.stringify([pet.name, pet.categoryId, pet.status]);

/** RETURNING promises no order; pets with equal fields are interchangeable, so match on them. */
function inInputOrder(newPets: readonly NewPetRow[], created: PetRow[]): PetRow[] {
  const byFields = new Map<string, PetRow[]>();
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
