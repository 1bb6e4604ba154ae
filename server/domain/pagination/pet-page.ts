import { hash } from 'node:crypto';
import { listPets, type PetFilters } from '../../../db/queries/pet-pages.js';
import type { ListPetsInput, PetPage } from '../schemas/pet.js';
import type { CursorScope, PageReader } from './cursor.js';

/** A cursor's filter is a digest when it holds more than a status (see filterOf). */
const DIGEST_PREFIX = '#';

const PET_CURSORS: CursorScope = {
  tag: 'pets.v1',
  describe: (filter) =>
    filter === null
      ? 'no filter'
      : filter.startsWith(DIGEST_PREFIX)
        ? 'a combination of id, categoryId, name and status filters'
        : `status=${filter}`,
};

/** Ascending and without repeats: `3,1,3` and `1,3` find the same pets, with the same cursors. */
function idsOf(list: string | undefined): number[] | undefined {
  return list === undefined
    ? undefined
    : [...new Set(list.split(',').map(Number))].sort((a, b) => a - b);
}

/** The filters of a request as the query reads them. */
function filtersOf(input: ListPetsInput): PetFilters {
  return {
    status: input.status,
    categoryId: input.categoryId,
    name: input.name,
    ids: idsOf(input.id),
  };
}

/**
 * The filters a cursor is bound to. A status alone is held as itself, as in every cursor issued
 * before the other filters existed, so those stay valid. Anything more is held as a digest: a
 * name of 255 characters or a hundred ids would not fit in a cursor, and the cursor only has to
 * tell whether the filters are the same.
 */
function filterOf({ status, categoryId, name, ids }: PetFilters): string | null {
  if (categoryId === undefined && name === undefined && ids === undefined) return status ?? null;
  // One-shot, as the API key's digest: no Hash object made for a digest used once.
  const digest = hash(
    'sha256',
    JSON.stringify([status ?? null, categoryId ?? null, name ?? null, ids ?? null]),
    'base64url',
  ).slice(0, 22);
  return `${DIGEST_PREFIX}${digest}`;
}

/**
 * One keyset page, shared by `pets.list` and `pets.listPage`. One row more than asked for is
 * read to learn whether another page exists, so the last page never links to an empty one.
 * Ids never change and are never reused, and insertPet makes them visible in ascending order,
 * so resuming after the last id seen visits every live pet exactly once, also those created
 * meanwhile; a pet deleted meanwhile is simply not there.
 */
export async function pageOfPets(ctx: PageReader, input: ListPetsInput): Promise<PetPage> {
  const { limit, cursor } = input;
  const filters = filtersOf(input);
  // Only a cursor read or issued needs the filters' digest: a first page that is also the
  // last (five pets by id) makes no hash.
  let bound: string | null | undefined;
  const filter = () => (bound === undefined ? (bound = filterOf(filters)) : bound);
  const after = cursor === undefined ? 0 : ctx.cursors.decode(PET_CURSORS, cursor, filter());
  const rows = await listPets(ctx.db, { ...filters, limit: limit + 1, after });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const nextCursor =
    rows.length > limit && last ? ctx.cursors.encode(PET_CURSORS, last.id, filter()) : null;
  return { items, nextCursor };
}

/** RFC 8288 `Link` value for the next page, with the request's filters; the cursor is URL-safe. */
export function nextPageLink(baseUrl: string, input: ListPetsInput, cursor: string): string {
  const { limit, status, categoryId, name } = input;
  const ids = idsOf(input.id);
  const query = new URLSearchParams({
    limit: String(limit),
    ...(status ? { status } : {}),
    ...(ids ? { id: ids.join(',') } : {}),
    ...(categoryId ? { categoryId: String(categoryId) } : {}),
    ...(name === undefined ? {} : { name }),
    cursor,
  });
  return `<${baseUrl}/pets?${query.toString()}>; rel="next"`;
}
