import { sql } from 'drizzle-orm';
import { runnerFor, statementOf, type Queryable } from '../runner.js';

export interface InventoryRow {
  available: number;
  pending: number;
  sold: number;
}

/**
 * The sum of each status's slots: at most 64 rows a status, however many pets there are. The
 * triggers on pets (drizzle/0009_pet_inventory_triggers.sql) keep the slots in the transaction
 * of every change, so one snapshot of them counts exactly the pets committed before it.
 */
const countsStatement = statementOf(
  sql`
  select
    coalesce(sum(count) filter (where status = 'available'), 0),
    coalesce(sum(count) filter (where status = 'pending'), 0),
    coalesce(sum(count) filter (where status = 'sold'), 0)
  from pet_inventory`,
  { quickRead: true },
);

/** Live pets per status. bigint sums come as text from postgres.js; they stay below 2^53. */
export async function readInventory(on: Queryable): Promise<InventoryRow> {
  const [row = []] = await runnerFor(on).rows(countsStatement);
  return { available: Number(row[0]), pending: Number(row[1]), sold: Number(row[2]) };
}
