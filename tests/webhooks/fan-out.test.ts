import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import {
  fanOutEvents,
  MAX_PENDING_PER_ENDPOINT,
} from '../../server/webhooks/storage/deliveries.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const run = (query: SQL) => executeRows(database.handle.db, query);

const addEvents = (count: number) =>
  run(sql`insert into events (type, data)
    select 'pet.created', jsonb_build_object('id', n) from generate_series(1, ${count}) n`);

const pendingOf = async (id: string) =>
  (
    await run(sql`select count(*)::int as n from webhook_deliveries
      where endpoint_id = ${id} and status = 'pending'`)
  )[0];

describe('fanning events out', () => {
  it('gives an endpoint with a full queue nothing more until it drains', async () => {
    await addEvents(MAX_PENDING_PER_ENDPOINT);
    for (const id of ['backed', 'fresh']) {
      await run(sql`insert into webhook_endpoints (id, url, secret, fanned_out_through)
        values (${id}, 'https://hooks.example/' || ${id}, 'whsec_test', 0)`);
    }
    // 'backed' already has a full queue: every event so far, never answered.
    await run(sql`insert into webhook_deliveries (endpoint_id, event_id)
      select 'backed', id from events`);
    await run(sql`update webhook_endpoints set fanned_out_through = (select max(id) from events)`);

    await addEvents(5);
    expect(await fanOutEvents(database.handle.db, 500)).toBe(5);
    expect(await pendingOf('fresh')).toEqual({ n: 5 });
    expect(await pendingOf('backed')).toEqual({ n: MAX_PENDING_PER_ENDPOINT });

    await run(sql`update webhook_deliveries set status = 'succeeded'
      where id = (select min(id) from webhook_deliveries where endpoint_id = 'backed')`);
    expect(await fanOutEvents(database.handle.db, 500)).toBe(5);
    expect(await pendingOf('backed')).toEqual({ n: MAX_PENDING_PER_ENDPOINT - 1 + 5 });
  });
});
