import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { petPageQuery, type PetFilters } from '../../db/queries/pet-pages.js';
import { runnerOf } from '../../db/runner.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * Enough pets that reading them all is a plan the database would consider: on a few hundred
 * rows a scan is cheapest and says nothing about the indexes.
 */
const PETS = 30_000;

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  const { db } = database.handle;
  // In chunks: each statement stays well inside the connection's statement timeout.
  for (let from = 1; from <= PETS; from += 5_000) {
    await db.execute(sql`
      insert into pets (name, category_id, status)
      select (array['Bella', 'Max', 'Luna', 'Zoë', 'Rex'])[1 + g % 5]
          || case when g % 301 = 0 then ' von Bark' else '' end, 1 + g % 1000,
        (array['available', 'pending', 'sold'])[1 + g % 3]::pet_status
      from generate_series(${from}::int, ${from + 4_999}::int) as g`);
  }
  await db.execute(sql`insert into pets (name, category_id) values ('Zebulon', 5), ('ZEBRA', 6)`);
  await db.execute(sql`vacuum analyze pets`);
});

afterAll(() => database.destroy());

async function planOf(filters: PetFilters, explain = 'explain'): Promise<string> {
  const { statement, values } = petPageQuery({ ...filters, limit: 21 });
  const rows = await runnerOf(database.handle.db).rows(
    { sql: `${explain} ${statement.sql}`, params: statement.params },
    values,
  );
  return rows.map((row) => String(row[0])).join('\n');
}

describe('the plan of each filter at 30,000 pets', () => {
  it.each<[string, PetFilters, string]>([
    ['ids', { ids: [17, 4_000, 29_999] }, 'pets_pkey'],
    ['categoryId', { categoryId: 5 }, 'pets_live_category_id_id_idx'],
    ['name', { name: 'zeb' }, 'pets_live_lower_name_id_idx'],
    ['name and status', { name: 'zebu', status: 'available' }, 'pets_live_lower_name_id_idx'],
    ['categoryId and status', { categoryId: 5, status: 'sold' }, 'pets_live_category_id_id_idx'],
    ['ids and name', { ids: [1, 2, 3], name: 'pet' }, 'pets_pkey'],
  ])('%s uses its index and scans no table of pets', async (_label, filters, index) => {
    const plan = await planOf(filters);
    expect(plan, plan).toContain(index);
    expect(plan).not.toMatch(/Seq Scan on pets/);
  });
});

describe('a name search', () => {
  /** What the (lower(name), id) index gave, summed over its loops: one per name found. */
  async function candidates(filters: PetFilters): Promise<{ read: number; names: number }> {
    const plan = await planOf(filters, 'explain (analyze, costs off)');
    const scan =
      /Index Only Scan using pets_live_lower_name_id_idx.*rows=([\d.]+) loops=(\d+)/.exec(plan);
    expect(plan, plan).not.toMatch(/Heap Fetches: [1-9]/);
    return { read: Number(scan?.[1]) * Number(scan?.[2]), names: Number(scan?.[2]) };
  }

  it.each<[string, number]>([
    ['bella', 2],
    ['von bark', 5],
    ['zeb', 2],
  ])('of %j reads at most a page per name found, from the index alone', async (name, names) => {
    const found = await candidates({ name });
    expect(found.names).toBe(names);
    expect(found.read).toBeLessThanOrEqual(names * 21);
  });
});

describe('the statistics of pets', () => {
  it('come from a small sample, for the columns and the name index alike', async () => {
    const bounds = await executeRows<{ table: string; column: string; bounds: number | null }>(
      database.handle.db,
      sql`select tablename as table, attname as column,
            array_length(histogram_bounds, 1) as bounds
          from pg_stats where schemaname = 'public'
            and tablename in ('pets', 'pets_live_lower_name_id_idx')`,
    );
    // A target of 10 keeps at most 11 histogram bounds.
    for (const row of bounds) {
      expect(row.bounds ?? 0, `${row.table}.${row.column}`).toBeLessThanOrEqual(11);
    }
  });
});
