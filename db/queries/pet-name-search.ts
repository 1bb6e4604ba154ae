import { and, asc, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { statementOf, type Statement } from '../runner.js';
import { DATABASE_CASING, petNames, pets } from '../schema.js';
import { petColumns } from './pets.js';

/** The filters a name search may be combined with, other than ids (the primary key serves those). */
export type NameSearchFilter = 'status' | 'categoryId';

/**
 * How many distinct names a term may match before a page is found by walking the ids instead:
 * each name costs one descent of the (lower(name), id) index.
 */
export const NAME_WALK_THRESHOLD = 1_000;
/** What one descent of the index costs, in index entries read: about the pages it touches. */
const DESCENT_COST = 4;

const CONDITIONS: Record<NameSearchFilter, SQL> = {
  status: eq(pets.status, sql.placeholder('status')),
  categoryId: eq(pets.categoryId, sql.placeholder('categoryId')),
};

const pattern = sql`lower(${sql.placeholder('pattern')})`;
const builder = new QueryBuilder({ casing: DATABASE_CASING });

/**
 * One page of the pets whose name contains a term, in two steps that never fetch a pet per
 * match. First the term is looked for among the distinct lower-cased names (pet_names, by
 * trigram): a few thousand rows in a real store, whatever its size. Then, for each name found,
 * the (lower(name), id) index gives its first pets after the cursor in id order, at most a page
 * each, and the smallest ids make the page: the work is the names found times a page, not the
 * pets that match. Only the page's pets are then read. A term found in many names whose pets
 * are dense in the store walks the ids instead, as does one in more than NAME_WALK_THRESHOLD
 * names (docs/pagination.md).
 */
export function nameSearchStatement(filters: readonly NameSearchFilter[]): Statement {
  const conditions = (more: SQL) =>
    and(
      more,
      isNull(pets.deletedAt),
      gt(pets.id, sql.placeholder('after')),
      ...filters.map((filter) => CONDITIONS[filter]),
    );
  const limit = sql.placeholder('limit');
  // Through the names, a page costs a descent per name and at most a page of entries each; a
  // walk of the ids costs the ids it passes, the store's size over the matches per page. The
  // walk wins when the names are many and their pets dense (a second word such as `jr`).
  const found = sql`
    with matching as materialized (
      select ${petNames.name}, ${petNames.livePets} from ${petNames}
      where ${petNames.name} like ${pattern}
      limit ${NAME_WALK_THRESHOLD + 1}
    ),
    found as (select count(*) as names, coalesce(sum(live_pets), 0) as matches from matching),
    plan as (
      select names > ${NAME_WALK_THRESHOLD}
        or ${limit} * greatest(matches, (select reltuples from pg_class where oid = 'pets'::regclass))
          / greatest(matches, 1) < names * ${DESCENT_COST} + least(matches, names * ${limit}) as walk
      from found
    )
    (
      select by_name.id from matching cross join lateral (
        select ${pets.id} from ${pets}
        where ${conditions(sql`lower(${pets.name}) = matching.name`)}
        order by ${pets.id} limit ${limit}
      ) as by_name
      where not (select walk from plan)
      order by by_name.id limit ${limit}
    )
    union all
    (
      select ${pets.id} from ${pets}
      where (select walk from plan) and ${conditions(sql`lower(${pets.name}) like ${pattern}`)}
      order by ${pets.id} limit ${limit}
    )`;
  return statementOf(
    builder
      .select(petColumns)
      .from(pets)
      .where(inArray(pets.id, sql`(${found})`))
      .orderBy(asc(pets.id)),
  );
}
