import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Database } from '../database.js';
import { OPEN_ORDER_STATUSES, orders } from '../schema.js';

export type OrderStatus = (typeof orders.status.enumValues)[number];

export type OrderRow = Pick<
  typeof orders.$inferSelect,
  'id' | 'petId' | 'status' | 'placedAt' | 'updatedAt'
>;

const orderColumns = {
  id: orders.id,
  petId: orders.petId,
  status: orders.status,
  placedAt: orders.placedAt,
  updatedAt: orders.updatedAt,
};

/**
 * The same on every instance, and distinct from the other advisory locks. Placing an order
 * holds it shared from drawing the order's id until the transaction ends; a page of orders is
 * read after taking it exclusively, which waits for those transactions (as for events).
 */
const ORDER_ID_ORDER_LOCK = 7_246_110_844;

export async function findOrder(db: Database, id: number): Promise<OrderRow | undefined> {
  const [order] = await db.select(orderColumns).from(orders).where(eq(orders.id, id)).limit(1);
  return order;
}

/** Locks one order until the transaction ends and reads it. */
export async function lockOrder(tx: Database, id: number): Promise<OrderRow | undefined> {
  const [order] = await tx.select(orderColumns).from(orders).where(eq(orders.id, id)).for('update');
  return order;
}

/** The order that holds the pet (placed or approved), if any. */
export async function findOpenOrder(tx: Database, petId: number): Promise<OrderRow | undefined> {
  const [order] = await tx
    .select(orderColumns)
    .from(orders)
    .where(and(eq(orders.petId, petId), inArray(orders.status, [...OPEN_ORDER_STATUSES])))
    .limit(1);
  return order;
}

/**
 * Places an order for a pet the caller has locked, under the shared lock above: a reader
 * paging by id never passes an order id that commits later.
 */
export async function insertOrder(tx: Database, petId: number): Promise<OrderRow> {
  await tx.execute(sql`select pg_advisory_xact_lock_shared(${ORDER_ID_ORDER_LOCK})`);
  const [order] = await tx.insert(orders).values({ petId }).returning(orderColumns);
  if (!order) throw new Error('INSERT ... RETURNING returned no row');
  return order;
}

export async function setOrderStatus(
  tx: Database,
  id: number,
  status: OrderStatus,
): Promise<OrderRow> {
  const [order] = await tx
    .update(orders)
    .set({ status, updatedAt: sql`now()` })
    .where(eq(orders.id, id))
    .returning(orderColumns);
  if (!order) throw new Error(`Order ${id} was locked but is gone`);
  return order;
}

/**
 * One keyset page of orders after `after` in id order, optionally of one status and pet, read
 * once every order whose id was drawn before has committed or rolled back.
 */
export function listOrders(
  db: Database,
  options: {
    limit: number;
    after: number;
    status?: OrderStatus | undefined;
    petId?: number | undefined;
  },
): Promise<OrderRow[]> {
  const { limit, after, status, petId } = options;
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${ORDER_ID_ORDER_LOCK})`);
    // A statement of its own, so its snapshot is taken once those orders are settled.
    return tx
      .select(orderColumns)
      .from(orders)
      .where(
        and(
          gt(orders.id, after),
          status === undefined ? undefined : eq(orders.status, status),
          petId === undefined ? undefined : eq(orders.petId, petId),
        ),
      )
      .orderBy(asc(orders.id))
      .limit(limit);
  });
}
