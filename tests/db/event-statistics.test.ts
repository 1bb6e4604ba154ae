import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
const db = () => database.handle.db;

/** More than the 3,000-row sample a target of 10 takes, so a larger target would show. */
const EVENTS = 10_000;

beforeAll(async () => {
  database = await createTestDatabase();
  await db().execute(sql`
    insert into events (type, occurred_at, data)
    select 'pet.created', now() - make_interval(days => g % 10), jsonb_build_object('id', g)
    from generate_series(1, ${EVENTS}) g`);
  await db().execute(sql`analyze events`);
});
afterAll(() => database.destroy());

/** Every plan node of an EXPLAIN (FORMAT JSON) answer, depth first. */
function planNodes(plan: Record<string, unknown>): Record<string, unknown>[] {
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [plan, ...children.flatMap(planNodes)];
}

async function indexesRead(query: string) {
  const [row] = await executeRows<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>(
    db(),
    sql.raw(`explain (format json) ${query}`),
  );
  const nodes = planNodes(row?.['QUERY PLAN'][0].Plan ?? {});
  expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
  return nodes.map((node) => node['Index Name']).filter((name) => name !== undefined);
}

describe('statistics of the events table', () => {
  it('are taken from a small sample, and never of the payloads', async () => {
    const rows = await executeRows<{ column: string; bounds: number | null }>(
      db(),
      sql`select attname as column, array_length(histogram_bounds, 1) as bounds
          from pg_stats where schemaname = 'public' and tablename = 'events' order by attname`,
    );
    expect(rows.map((row) => row.column)).toEqual(['id', 'occurred_at', 'type']);
    // A target of 10 keeps at most 11 histogram bounds (PostgreSQL's default would keep 101).
    for (const row of rows) expect(row.bounds ?? 0).toBeLessThanOrEqual(11);
  });

  it('still send the purge to the time index and a resumed stream to the key', async () => {
    expect(
      await indexesRead(`select id from events where occurred_at < now() - interval '7 days'
                         order by occurred_at limit 1000`),
    ).toEqual(['events_occurred_at_idx']);
    expect(
      await indexesRead(
        `select id, type, occurred_at, data from events where id > ${EVENTS / 2} order by id limit 100`,
      ),
    ).toEqual(['events_pkey']);
  });
});
