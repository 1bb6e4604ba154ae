import { listPets } from '../../db/queries/pets.js';
import type { ListPetsInput, PetPage } from '../schemas/pet.js';
import type { Context } from '../trpc/context.js';
import type { CursorScope } from './cursor.js';

/** A pet cursor's filter is its status, as in every cursor issued since the first release. */
const PET_CURSORS: CursorScope = {
  tag: 'pets.v1',
  describe: (status) => (status ? `status=${status}` : 'no status filter'),
};

/**
 * One keyset page, shared by `pets.list` and `pets.listPage`. One row more than asked for is
 * read to learn whether another page exists, so the last page never links to an empty one.
 * Ids never change and are never reused, and insertPet makes them visible in ascending order,
 * so resuming after the last id seen visits every live pet exactly once, also those created
 * meanwhile; a pet deleted meanwhile is simply not there.
 */
export async function pageOfPets(
  ctx: Pick<Context, 'db' | 'cursors'>,
  input: ListPetsInput,
): Promise<PetPage> {
  const { limit, status, cursor } = input;
  const filter = status ?? null;
  const after = cursor === undefined ? 0 : ctx.cursors.decode(PET_CURSORS, cursor, filter);
  const rows = await listPets(ctx.db, { limit: limit + 1, status, after });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const nextCursor =
    rows.length > limit && last ? ctx.cursors.encode(PET_CURSORS, last.id, filter) : null;
  return { items, nextCursor };
}

/** RFC 8288 `Link` value for the next page; the cursor is URL-safe as issued. */
export function nextPageLink(
  baseUrl: string,
  { limit, status }: Pick<ListPetsInput, 'limit' | 'status'>,
  cursor: string,
): string {
  const query = new URLSearchParams({
    limit: String(limit),
    ...(status ? { status } : {}),
    cursor,
  });
  return `<${baseUrl}/pets?${query.toString()}>; rel="next"`;
}
