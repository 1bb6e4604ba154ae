import { listOrders, type OrderRow } from '../../../db/queries/orders.js';
import type { ListOrdersInput } from '../schemas/order.js';
import type { CursorScope, PageReader } from './cursor.js';

const ORDER_CURSORS: CursorScope = {
  tag: 'orders.v1',
  describe: (filter) => filter ?? 'no filter',
};

/** The filters of a listing as a cursor holds them, e.g. `status=placed&petId=3`. */
function filterOf({ status, petId }: Pick<ListOrdersInput, 'status' | 'petId'>): string | null {
  const parts = [status && `status=${status}`, petId && `petId=${petId}`].filter(Boolean);
  return parts.length > 0 ? parts.join('&') : null;
}

/**
 * One keyset page of orders, as pageOfPets reads pets: insertOrder makes order ids visible in
 * ascending order, so following the cursors visits every matching order exactly once.
 */
export async function pageOfOrders(
  ctx: PageReader,
  input: ListOrdersInput,
): Promise<{ items: OrderRow[]; nextCursor: string | null }> {
  const { limit, status, petId, cursor } = input;
  const filter = filterOf(input);
  const after = cursor === undefined ? 0 : ctx.cursors.decode(ORDER_CURSORS, cursor, filter);
  const rows = await listOrders(ctx.db, { limit: limit + 1, after, status, petId });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const nextCursor =
    rows.length > limit && last ? ctx.cursors.encode(ORDER_CURSORS, last.id, filter) : null;
  return { items, nextCursor };
}

/** RFC 8288 `Link` value for the next page of orders. */
export function nextOrdersLink(
  baseUrl: string,
  { limit, status, petId }: Pick<ListOrdersInput, 'limit' | 'status' | 'petId'>,
  cursor: string,
): string {
  const query = new URLSearchParams({
    limit: String(limit),
    ...(status ? { status } : {}),
    ...(petId ? { petId: String(petId) } : {}),
    cursor,
  });
  return `<${baseUrl}/store/orders?${query.toString()}>; rel="next"`;
}
