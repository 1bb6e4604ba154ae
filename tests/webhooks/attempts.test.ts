import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { recordAttempts } from '../../server/webhooks/storage/attempts.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const run = (query: SQL) => executeRows(database.handle.db, query);

/** `count` deliveries of the endpoint `id` in their first attempt, oldest first. */
async function attemptsOf(id: string, count: number): Promise<{ id: number; attempts: number }[]> {
  await run(sql`insert into webhook_endpoints (id, url, secret, fanned_out_through)
    values (${id}, 'https://hooks.example/' || ${id}, 'whsec_test', 0)`);
  const rows = await run(sql`with made as (
      insert into events (type, data)
      select 'pet.created', jsonb_build_object('id', n) from generate_series(1, ${count}) n
      returning id)
    insert into webhook_deliveries (endpoint_id, event_id, attempts, lease_until)
    select ${id}, id, 1, now() + interval '1 minute' from made order by id
    returning id`);
  return rows.map((row) => ({ id: Number(row.id), attempts: 1 }));
}

const succeeded = { status: 'succeeded', responseStatus: 200, error: null } as const;
const failed = { status: 'pending', retryInSeconds: 5, responseStatus: 500, error: null } as const;

const endpointRow = async (id: string) =>
  (
    await run(sql`select xmin::text as version, failing_since from webhook_endpoints
    where id = ${id}`)
  )[0];

describe('recording attempts', () => {
  it("does not rewrite a healthy endpoint's row for its successes", async () => {
    const [first, second] = await attemptsOf('healthy', 2);
    if (!first || !second) throw new Error('no deliveries');
    const before = await endpointRow('healthy');
    const answers = await recordAttempts(database.handle.db, [
      { delivery: first, outcome: succeeded },
      { delivery: second, outcome: succeeded },
    ]);
    expect(answers).toEqual([
      { recorded: true, failingSince: null },
      { recorded: true, failingSince: null },
    ]);
    expect(await endpointRow('healthy')).toEqual(before);
  });

  it('follows the outcomes in their order, and records nothing for a lost lease', async () => {
    const [a, b, c, d] = await attemptsOf('mixed', 4);
    if (!a || !b || !c || !d) throw new Error('no deliveries');
    const healed = await recordAttempts(database.handle.db, [
      { delivery: a, outcome: failed },
      { delivery: b, outcome: succeeded },
    ]);
    expect(healed.map((answer) => answer.failingSince)).toEqual([null, null]);
    expect((await endpointRow('mixed'))?.failing_since).toBeNull();

    const broken = await recordAttempts(database.handle.db, [
      { delivery: c, outcome: succeeded },
      { delivery: d, outcome: failed },
      { delivery: { id: a.id, attempts: 7 }, outcome: succeeded },
    ]);
    expect(broken[0]?.failingSince).toBeInstanceOf(Date);
    expect(broken[1]?.failingSince).toEqual(broken[0]?.failingSince);
    expect(broken[2]).toEqual({ recorded: false, failingSince: null });
    expect((await endpointRow('mixed'))?.failing_since).not.toBeNull();
  });
});
