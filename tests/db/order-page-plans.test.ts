import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOrders, orderPageStatement, type OrderFilters } from '../../db/queries/orders.js';
import { statementOf, transaction } from '../../db/runner.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
const db = () => database.handle.db;

const PETS = 3_000;
const ORDERS_PER_PET = 10;

beforeAll(async () => {
  database = await createTestDatabase();
  await db().execute(sql`
    insert into pets (name, category_id, status)
    select 'Pet ' || g, 1, 'sold' from generate_series(1, ${PETS}) g`);
  // Closed orders only, but one open order per pet among the first few hundred.
  await db().execute(sql`
    insert into orders (pet_id, status)
    select 1 + g % ${PETS},
      (case when g <= 300 then 'placed' when g % 2 = 0 then 'delivered' else 'cancelled' end)::order_status
    from generate_series(1, ${PETS * ORDERS_PER_PET}) g`);
  await db().execute(sql`analyze orders`);
});
afterAll(() => database.destroy());

const VALUES = { after: 0, limit: 20, status: 'placed', petId: 42 } as const;

/** Every plan node of an EXPLAIN (FORMAT JSON) answer, depth first. */
function planNodes(plan: Record<string, unknown>): Record<string, unknown>[] {
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [plan, ...children.flatMap(planNodes)];
}

/**
 * The plan a statement gets once the plan cache chose the generic one (what a long-lived
 * connection may end up with), read through PREPARE and EXPLAIN EXECUTE.
 */
function genericPlan(filters: OrderFilters) {
  const statement = orderPageStatement(filters);
  const names = statement.params.map((param) => (param as { name: string }).name);
  const literals = names.map((name) => `'${String(VALUES[name as keyof typeof VALUES])}'`);
  return transaction(db(), async (tx) => {
    await tx.rows(statementOf(sql`set local plan_cache_mode = force_generic_plan`));
    await tx.rows(statementOf(sql.raw(`prepare order_page as ${statement.sql}`)));
    const [row] = await tx.rows(
      statementOf(sql.raw(`explain (format json) execute order_page(${literals.join(', ')})`)),
    );
    await tx.rows(statementOf(sql`deallocate order_page`));
    const [explained] = (row?.[0] ?? []) as [{ Plan: Record<string, unknown> }];
    return planNodes(explained.Plan);
  });
}

describe('the page statements of listOrders', () => {
  it.each([
    { filters: {}, indexes: ['orders_pkey'] },
    { filters: { status: VALUES.status }, indexes: ['orders_status_id_idx'] },
    { filters: { petId: VALUES.petId }, indexes: ['orders_pet_id_id_idx'] },
    // An open status and a pet: the partial index of open orders serves it as well.
    {
      filters: { status: VALUES.status, petId: VALUES.petId },
      indexes: ['orders_pet_id_id_idx', 'orders_one_open_per_pet_idx'],
    },
  ] as const)(
    'read $indexes, never the whole table, for $filters',
    async ({ filters, indexes }) => {
      const nodes = await genericPlan(filters);
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
      const used = nodes.map((node) => node['Index Name']).filter((name) => name !== undefined);
      expect(used.length).toBeGreaterThan(0);
      for (const name of used) expect(indexes).toContain(name);
    },
  );

  it.each([
    {},
    { status: VALUES.status },
    { petId: VALUES.petId },
    { status: VALUES.status, petId: VALUES.petId },
  ] as const)('answer the orders that match %o', async (filters) => {
    const page = await listOrders(db(), { ...filters, after: 0, limit: 100 });
    expect(page.length).toBeGreaterThan(0);
    for (const order of page) {
      if ('status' in filters) expect(order.status).toBe(filters.status);
      if ('petId' in filters) expect(order.petId).toBe(filters.petId);
    }
    expect(page.map((order) => order.id)).toEqual(
      [...page.map((order) => order.id)].sort((a, b) => a - b),
    );
  });
});
