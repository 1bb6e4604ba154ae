import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { maintainTables } from '../../db/embedded/maintenance.js';
import { petPageQuery, type PetFilters } from '../../db/queries/pet-pages.js';
import { runnerOf } from '../../db/runner.js';
import { createTestDatabase, describeOnEmbedded, type TestDatabase } from '../helpers/database.js';

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
      select 'Pet ' || md5(g::text), 1 + g % 1000,
        (array['available', 'pending', 'sold'])[1 + g % 3]::pet_status
      from generate_series(${from}::int, ${from + 4_999}::int) as g`);
  }
  await db.execute(sql`insert into pets (name, category_id) values ('Zebulon', 5), ('ZEBRA', 6)`);
  await db.execute(sql`analyze pets`);
});

afterAll(() => database.destroy());

async function planOf(filters: PetFilters): Promise<string> {
  const { statement, values } = petPageQuery({ ...filters, limit: 21 });
  const rows = await runnerOf(database.handle.db).rows(
    { sql: `explain ${statement.sql}`, params: statement.params },
    values,
  );
  return rows.map((row) => String(row[0])).join('\n');
}

describe('the plan of each filter at 30,000 pets', () => {
  it.each<[string, PetFilters, string]>([
    ['ids', { ids: [17, 4_000, 29_999] }, 'pets_pkey'],
    ['categoryId', { categoryId: 5 }, 'pets_live_category_id_id_idx'],
    ['name', { name: 'zeb' }, 'pets_name_trgm_idx'],
    ['name and status', { name: 'zebu', status: 'available' }, 'pets_name_trgm_idx'],
    ['categoryId and status', { categoryId: 5, status: 'sold' }, 'pets_live_category_id_id_idx'],
    ['ids and name', { ids: [1, 2, 3], name: 'pet' }, 'pets_pkey'],
  ])('%s uses its index and scans no table', async (_label, filters, index) => {
    const plan = await planOf(filters);
    expect(plan, plan).toContain(index);
    expect(plan).not.toMatch(/Seq Scan/);
  });
});

describe('the name statement', () => {
  it('is planned for its value on every run, never with one generic plan', () => {
    expect(petPageQuery({ name: 'zeb', limit: 21 }).statement.planEachRun).toBe(true);
    expect(petPageQuery({ categoryId: 5, limit: 21 }).statement.planEachRun).toBe(false);
  });
});

describe('the statistics of pets', () => {
  const histogramBounds = (table: string) =>
    executeRows<{ column: string; bounds: number | null }>(
      database.handle.db,
      sql`select attname as column, array_length(histogram_bounds, 1) as bounds
          from pg_stats where schemaname = 'public' and tablename = ${table} order by attname`,
    );

  it('of the columns come from a small sample, the name’s from the trigram index’s expression', async () => {
    // A target of 10 keeps at most 11 histogram bounds; the index expression's 100, 101.
    for (const row of await histogramBounds('pets')) {
      expect(row.bounds ?? 0, row.column).toBeLessThanOrEqual(11);
    }
    expect(await histogramBounds('pets_name_trgm_idx')).toEqual([{ column: 'lower', bounds: 101 }]);
  });
});

describeOnEmbedded('a maintenance round on the embedded database', () => {
  const NEW_NAMES = 10_000;
  it('refreshes the columns’ statistics and leaves the name’s, which a rare name is planned by', async () => {
    const { db } = database.handle;
    // A quarter of the rows: a full ANALYZE would give them about 25 of the name's 101 bounds.
    await db.execute(sql`
      insert into pets (name, category_id)
      select 'Mmm ' || md5(g::text), 1 from generate_series(1, ${NEW_NAMES}::int) g`);
    const steps = await maintainTables(db, 'round');
    const analyze = steps.find((step) => step.table === 'pets' && step.action === 'analyze');
    expect(analyze?.columns).toContain('name');
    const [stats] = await executeRows<{ rows: number; newNames: number }>(
      db,
      sql`select (select reltuples from pg_class where relname = 'pets')::int as rows,
            (select count(*) from pg_stats, unnest(histogram_bounds::text::text[]) bound
             where tablename = 'pets_name_trgm_idx' and bound like 'mmm%')::int as "newNames"`,
    );
    expect(stats?.rows).toBeGreaterThan(PETS + NEW_NAMES / 2);
    expect(stats?.newNames).toBe(0);
    const plan = await planOf({ name: 'zeb' });
    expect(plan, plan).toContain('pets_name_trgm_idx');
  });
});
