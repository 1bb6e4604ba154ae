import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { claimDueDeliveries } from '../../server/webhooks/storage/deliveries.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const run = (query: SQL) => executeRows(database.handle.db, query);

/** An endpoint with `leased` deliveries in flight and `due` more waiting, each its own event. */
async function endpointWith(id: string, leased: number, due: number): Promise<void> {
  await run(sql`insert into webhook_endpoints (id, url, secret, fanned_out_through)
    values (${id}, 'https://hooks.example/' || ${id}, 'whsec_test', 0)`);
  await run(sql`with made as (
      insert into events (type, data)
      select 'pet.created', jsonb_build_object('id', n) from generate_series(1, ${leased + due}) n
      returning id)
    insert into webhook_deliveries (endpoint_id, event_id, lease_until)
    select ${id}, id, case when row_number() over (order by id) <= ${leased}
      then now() + interval '1 minute' end
    from made`);
}

describe('claiming due deliveries', () => {
  it('takes only free slots, and locks no row it does not lease', async () => {
    await endpointWith('full', 10, 5);
    await endpointWith('half', 6, 8);
    const claimed = await claimDueDeliveries(database.handle.db, 100, 8);
    expect(claimed.filter((delivery) => delivery.endpointId === 'half')).toHaveLength(4);
    expect(claimed.filter((delivery) => delivery.endpointId === 'full')).toHaveLength(0);
    // A row locked FOR UPDATE keeps its locker's transaction id in xmax after the commit.
    const locked = await run(sql`select count(*)::int as n from webhook_deliveries
      where lease_until is null and xmax::text <> '0'`);
    expect(locked[0]).toEqual({ n: 0 });
  });
});
