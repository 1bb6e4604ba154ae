import { and, asc, eq, gt, isNull, sql, type SQL } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { runnerFor, statementOf, type Queryable, type Statement } from '../runner.js';
import { DATABASE_CASING, pets } from '../schema.js';
import { nameSearchStatement, type NameSearchFilter } from './pet-name-search.js';
import { petColumns, toPet, type PetRow, type PetStatus } from './pets.js';

/** What a page of pets may be narrowed to; every filter given must hold. */
export interface PetFilters {
  status?: PetStatus | undefined;
  categoryId?: number | undefined;
  /** Found anywhere in the name, compared after PostgreSQL's lower(); literal, no wildcards. */
  name?: string | undefined;
  /** Pet ids, at most a hundred. */
  ids?: readonly number[] | undefined;
}

type Filter = keyof PetFilters;
const FILTERS: readonly Filter[] = ['ids', 'categoryId', 'name', 'status'];

/**
 * Each filter in a form its index serves: the primary key for ids, (category_id, id) for the
 * category, (status, id) for the status. A name alone or with these is found through the
 * distinct names (./pet-name-search.ts); with ids, the hundred ids at most are read and matched.
 */
const CONDITIONS: Record<Filter, SQL> = {
  ids: sql`${pets.id} = any(${sql.placeholder('ids')}::text::bigint[])`,
  categoryId: eq(pets.categoryId, sql.placeholder('categoryId')),
  name: sql`lower(${pets.name}) like lower(${sql.placeholder('pattern')})`,
  status: eq(pets.status, sql.placeholder('status')),
};

const builder = new QueryBuilder({ casing: DATABASE_CASING });

/**
 * Filters whose page costs about the same whatever the data: an index gives their rows in id
 * order. A status compared as a parameter may get a plan that walks every id for a rare one,
 * and a name's search costs what its names cost, so pages with either are no quick reads.
 */
const QUICK_FILTERS: ReadonlySet<Filter> = new Set(['ids', 'categoryId']);

function pageStatement(filters: readonly Filter[]): Statement {
  if (filters.includes('name') && !filters.includes('ids')) {
    return nameSearchStatement(
      filters.filter((filter): filter is NameSearchFilter => filter !== 'name'),
    );
  }
  const where = and(
    ...filters.map((filter) => CONDITIONS[filter]),
    isNull(pets.deletedAt),
    gt(pets.id, sql.placeholder('after')),
  );
  return statementOf(
    builder
      .select(petColumns)
      .from(pets)
      .where(where)
      .orderBy(asc(pets.id))
      .limit(sql.placeholder('limit')),
    { quickRead: filters.every((filter) => QUICK_FILTERS.has(filter)) },
  );
}

/**
 * One statement per combination of filters, not one with `$x IS NULL OR ...` for all: a
 * prepared statement may be planned once for every value, and that one plan would have to
 * serve absent filters too, which only a scan of every pet does.
 */
const statements = new Map<string, Statement>();

function statementFor(filters: readonly Filter[]): Statement {
  const key = filters.join(',');
  let statement = statements.get(key);
  if (!statement) {
    statement = pageStatement(filters);
    statements.set(key, statement);
  }
  return statement;
}

/** `%` and `_` are wildcards of LIKE and `\` its escape; in a name they are plain characters. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

type PageOptions = PetFilters & { limit: number; after?: number | undefined };

/** The statement of one page and its values; tests read its plan. */
export function petPageQuery(options: PageOptions): {
  statement: Statement;
  values: Record<string, unknown>;
} {
  const { limit, after = 0, status, categoryId, name, ids } = options;
  const present = FILTERS.filter((filter) => options[filter] !== undefined);
  return {
    statement: statementFor(present),
    values: {
      ids: ids && `{${ids.join(',')}}`,
      categoryId,
      pattern: name === undefined ? undefined : containsPattern(name),
      status,
      after,
      limit,
    },
  };
}

/** One keyset page: live pets after `after` in id order that pass every filter given. */
export async function listPets(on: Queryable, options: PageOptions): Promise<PetRow[]> {
  const { statement, values } = petPageQuery(options);
  const rows = await runnerFor(on).rows(statement, values);
  // An index, not rows.map or for-of: postgres.js answers an Array subclass, whose map is
  // several times slower and whose iterator allocated a result object per row (docs/performance.md).
  const page = new Array<PetRow>(rows.length);
  for (let index = 0; index < rows.length; index++) page[index] = toPet(rows[index] as unknown[]);
  return page;
}
