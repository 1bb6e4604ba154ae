import { sql, type SQL } from 'drizzle-orm';
import {
  runnerFor,
  statementOf,
  transaction,
  type Queryable,
  type Runner,
  type Statement,
  type Transactor,
} from '../runner.js';
import type { Database } from '../database.js';
import { OPEN_ORDER_STATUS_LIST, orderStatus, type orders } from '../schema.js';

export type OrderStatus = (typeof orders.status.enumValues)[number];

export type OrderRow = Pick<
  typeof orders.$inferSelect,
  'id' | 'petId' | 'status' | 'placedAt' | 'updatedAt'
>;

/** The select list of every order read, in this order: rows are mapped by position. */
const ORDER_COLUMNS = sql.raw('id, pet_id, status, placed_at, updated_at');

/** postgres.js hands timestamps over as text (drizzle's setting), PGlite as dates. */
function toOrder(row: unknown[]): OrderRow {
  return {
    id: Number(row[0]),
    petId: Number(row[1]),
    status: row[2] as OrderStatus,
    placedAt: new Date(row[3] as string | Date),
    updatedAt: new Date(row[4] as string | Date),
  };
}

const first = (rows: unknown[][]) => rows[0] && toOrder(rows[0]);

/**
 * The same on every instance, and distinct from the other advisory locks. Placing an order
 * holds it shared from drawing the order's id until the transaction ends; a page of orders is
 * read after taking it exclusively, which waits for those transactions (as for events).
 */
const ORDER_ID_ORDER_LOCK = 7_246_110_844;

const byId = statementOf(
  sql`select ${ORDER_COLUMNS} from orders where id = ${sql.placeholder('id')}`,
  { quickRead: true },
);

export async function findOrder(on: Queryable, id: number): Promise<OrderRow | undefined> {
  return first(await runnerFor(on).rows(byId, { id }));
}

const lockStatement = statementOf(
  sql`select ${ORDER_COLUMNS} from orders where id = ${sql.placeholder('id')} for update`,
);

/** Locks one order until the transaction ends and reads it. */
export async function lockOrder(tx: Runner, id: number): Promise<OrderRow | undefined> {
  return first(await tx.rows(lockStatement, { id }));
}

const openStatement = statementOf(sql`
  select ${ORDER_COLUMNS} from orders
  where pet_id = ${sql.placeholder('petId')} and status in (${OPEN_ORDER_STATUS_LIST})
  limit 1`);

/** The order that holds the pet (placed or approved), if any. */
export async function findOpenOrder(tx: Runner, petId: number): Promise<OrderRow | undefined> {
  return first(await tx.rows(openStatement, { petId }));
}

const insertStatement = statementOf(sql`
  with id_order as (select pg_advisory_xact_lock_shared(${ORDER_ID_ORDER_LOCK}))
  insert into orders (pet_id) select ${sql.placeholder('petId')}::bigint from id_order
  returning ${ORDER_COLUMNS}`);

/**
 * Places an order for a pet the caller has locked, under the shared lock above: a reader
 * paging by id never passes an order id that commits later.
 */
export async function insertOrder(tx: Runner, petId: number): Promise<OrderRow> {
  const order = first(await tx.rows(insertStatement, { petId }));
  if (!order) throw new Error('INSERT ... RETURNING returned no row');
  return order;
}

const statusStatement = statementOf(sql`
  update orders set status = ${sql.placeholder('status')}::order_status, updated_at = now()
  where id = ${sql.placeholder('id')}
  returning ${ORDER_COLUMNS}`);

export async function setOrderStatus(
  tx: Runner,
  id: number,
  status: OrderStatus,
): Promise<OrderRow> {
  const order = first(await tx.rows(statusStatement, { id, status }));
  if (!order) throw new Error(`Order ${id} was locked but is gone`);
  return order;
}

const barrier = statementOf(sql`select pg_advisory_xact_lock(${ORDER_ID_ORDER_LOCK})`);

function pageStatement(filters: SQL) {
  return statementOf(sql`
    select ${ORDER_COLUMNS} from orders
    where id > ${sql.placeholder('after')}${filters}
    order by id limit ${sql.placeholder('limit')}`);
}

const byPet = sql` and pet_id = ${sql.placeholder('petId')}::bigint`;

/**
 * A statement per combination of filters, and per status: each gets a plan of its own. One
 * statement with `$x is null or ...` for every combination scanned every order once the plan
 * cache settled on a generic plan; and a generic plan for `status = $1` cannot tell a rare
 * status (walk its index) from a common one (walk the ids), a literal status can.
 */
function statementsFor(status: OrderStatus | undefined) {
  const byStatus = status === undefined ? sql`` : sql` and status = ${sql.raw(`'${status}'`)}`;
  return { any: pageStatement(byStatus), pet: pageStatement(sql`${byStatus}${byPet}`) };
}

const anyStatus = statementsFor(undefined);
const perStatus = new Map(orderStatus.enumValues.map((status) => [status, statementsFor(status)]));

export interface OrderFilters {
  status?: OrderStatus | undefined;
  petId?: number | undefined;
}

/** The page statement for the filters that are set. */
export function orderPageStatement({ status, petId }: OrderFilters): Statement {
  const statements = (status && perStatus.get(status)) ?? anyStatus;
  return petId === undefined ? statements.any : statements.pet;
}

/**
 * One keyset page of orders after `after` in id order, optionally of one status and pet, read
 * once every order whose id was drawn before has committed or rolled back.
 */
export function listOrders(
  db: Database | Transactor,
  options: OrderFilters & { limit: number; after: number },
): Promise<OrderRow[]> {
  const { limit, after, status, petId } = options;
  const statement = orderPageStatement(options);
  return transaction(db, async (tx) => {
    await tx.rows(barrier);
    // A statement of its own, so its snapshot is taken once those orders are settled.
    const rows = await tx.rows(statement, { after, status, petId, limit });
    return rows.map(toOrder);
  });
}
