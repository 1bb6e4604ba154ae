import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { historyStatement } from '../../db/queries/pet-history.js';
import { runnerOf } from '../../db/runner.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** Enough events that reading them all is a plan the database would consider. */
const EVENTS = 30_000;

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  const { db } = database.handle;
  await db.execute(sql`
    insert into events (type, data)
    select (array['pet.created', 'pet.updated', 'order.placed'])[1 + g % 3]::event_type,
      jsonb_build_object('id', 1 + g % 3000, 'name', 'Rex', 'categoryId', 1, 'status', 'sold')
    from generate_series(1, ${EVENTS}::int) as g`);
  await db.execute(sql`vacuum analyze events`);
});

afterAll(() => database.destroy());

it("reads a pet's history from its index, newest first, without a sort or a scan", async () => {
  const rows = await runnerOf(database.handle.db).rows(
    { sql: `explain ${historyStatement.sql}`, params: historyStatement.params },
    { petId: 17, before: Number.MAX_SAFE_INTEGER, limit: 21 },
  );
  const plan = rows.map((row) => String(row[0])).join('\n');
  expect(plan, plan).toMatch(/Index Scan Backward using events_pet_history_idx/);
  expect(plan).not.toMatch(/Seq Scan|Sort/);
});
