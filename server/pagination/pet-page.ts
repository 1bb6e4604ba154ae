import { listPets } from '../../db/queries/pets.js';
import type { Context } from '../trpc/context.js';
import type { ListPetsInput, PetPage } from '../schemas/pet.js';

/**
 * One keyset page, shared by `pets.list` and `pets.listPage`. One row more than asked for is
 * read to learn whether another page exists, so the last page never links to an empty one.
 * Ids never change, pets are never deleted, and insertPet makes ids visible in ascending order,
 * so resuming after the last id seen visits every pet exactly once, also those created meanwhile.
 */
export async function pageOfPets(
  ctx: Pick<Context, 'db' | 'cursors'>,
  input: ListPetsInput,
): Promise<PetPage> {
  const { limit, status, cursor } = input;
  const after = cursor === undefined ? 0 : ctx.cursors.decode(cursor, status).after;
  const rows = await listPets(ctx.db, { limit: limit + 1, status, after });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const nextCursor =
    rows.length > limit && last ? ctx.cursors.encode({ after: last.id, status }) : null;
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
