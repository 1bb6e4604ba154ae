import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { outcomeWriter } from '../../server/webhooks/domain/outcome-writer.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const run = (query: ReturnType<typeof sql>) => executeRows(database.handle.db, query);
const succeeded = { status: 'succeeded', responseStatus: 200, error: null } as const;

describe('writing outcomes', () => {
  it('writes the outcomes that end during a write together, in the next statement', async () => {
    await run(sql`insert into webhook_endpoints (id, url, secret, fanned_out_through)
      values ('grouped', 'https://hooks.example/grouped', 'whsec_test', 0)`);
    const rows = await run(sql`with made as (
        insert into events (type, data)
        select 'pet.created', jsonb_build_object('id', n) from generate_series(1, 6) n
        returning id)
      insert into webhook_deliveries (endpoint_id, event_id, attempts, lease_until)
      select 'grouped', id, 1, now() + interval '1 minute' from made order by id
      returning id`);
    const write = outcomeWriter(database.handle.db);
    const answers = await Promise.all(
      rows.map((row) =>
        write({ delivery: { id: Number(row.id), attempts: 1 }, outcome: succeeded }),
      ),
    );
    expect(answers.every(({ recorded }) => recorded)).toBe(true);
    // A row's xmin is the transaction that wrote it: the first outcome went alone, at once;
    // the five that came while it was written went in one transaction after it.
    const versions = await run(sql`select xmin::text as version from webhook_deliveries
      where endpoint_id = 'grouped' order by id`);
    const [first, ...rest] = versions.map(({ version }) => version as string);
    expect(new Set(rest).size).toBe(1);
    expect(rest[0]).not.toBe(first);
  });
});
