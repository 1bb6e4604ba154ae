import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { statementOf, transaction } from '../../db/runner.js';
import { recordAttempts } from '../../server/webhooks/storage/attempts.js';
import { claimDeliveries, settledEvents } from '../../server/webhooks/storage/claim.js';
import { queueDepths, type ClaimedDelivery } from '../../server/webhooks/storage/deliveries.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const run = (query: SQL) => executeRows(database.handle.db, query);

/** An endpoint whose cursor is at the log's end, so that only what a test adds is its work. */
async function endpoint(id: string, options: { types?: string; failing?: boolean } = {}) {
  await run(sql`insert into webhook_endpoints (id, url, secret, types, failing_since,
      fanned_out_through)
    values (${id}, 'https://hooks.example/' || ${id}, 'whsec_test',
      ${options.types ?? null}::event_type[], ${options.failing ? sql`now()` : null},
      (select coalesce(max(id), 0) from events))`);
}

/** `count` new events of `type`. */
async function events(count: number, type = 'pet.created'): Promise<void> {
  await run(sql`insert into events (type, data)
    select ${type}::event_type, jsonb_build_object('id', n) from generate_series(1, ${count}) n`);
}

/** An endpoint with `leased` deliveries in flight and `due` retries waiting. */
async function endpointWith(id: string, leased: number, due: number): Promise<void> {
  await endpoint(id);
  await run(sql`with made as (
      insert into events (type, data)
      select 'pet.created', jsonb_build_object('id', n) from generate_series(1, ${leased + due}) n
      returning id)
    insert into webhook_deliveries (endpoint_id, event_id, attempts, lease_until)
    select ${id}, id, 1, case when row_number() over (order by id) <= ${leased}
      then now() + interval '1 minute' end
    from made`);
  await run(sql`update webhook_endpoints set fanned_out_through = (select max(id) from events)
    where id = ${id}`);
}

const claim = async (limit = 100) => {
  const { db } = database.handle;
  return claimDeliveries(db, { limit, leaseSeconds: 8, settled: await settledEvents(db) });
};
const ofEndpoint = (claimed: ClaimedDelivery[], id: string) =>
  claimed.filter((delivery) => delivery.endpointId === id);
const rowsOf = async (id: string) =>
  (await run(sql`select count(*)::int as n from webhook_deliveries where endpoint_id = ${id}`))[0];
const succeeded = (delivery: { id: number; attempts: number }) =>
  recordAttempts(database.handle.db, [
    { delivery, outcome: { status: 'succeeded', responseStatus: 200, error: null } },
  ]);

describe('claiming deliveries', () => {
  it('takes only free slots, and locks no row it does not lease', async () => {
    await endpointWith('full', 10, 5);
    await endpointWith('half', 6, 8);
    const claimed = await claim();
    expect(ofEndpoint(claimed, 'half')).toHaveLength(4);
    expect(ofEndpoint(claimed, 'full')).toHaveLength(0);
    // A row locked FOR UPDATE keeps its locker's transaction id in xmax after the commit.
    const locked = await run(sql`select count(*)::int as n from webhook_deliveries
      where lease_until is null and xmax::text <> '0'`);
    expect(locked[0]).toEqual({ n: 0 });
  });

  it('makes rows only for the events it attempts: a backlog stays in the log', async () => {
    await endpoint('backlog');
    await events(25);
    const first = ofEndpoint(await claim(), 'backlog');
    expect(first.map((delivery) => delivery.attempts)).toEqual(Array(10).fill(1));
    expect(await rowsOf('backlog')).toEqual({ n: 10 });
    // The queue counts the 15 events not yet attempted beside the 10 in flight.
    expect((await queueDepths(database.handle.db)).get('backlog')).toBe(25);
    expect(ofEndpoint(await claim(), 'backlog')).toEqual([]);
    for (const delivery of first) await succeeded(delivery);
    const second = ofEndpoint(await claim(), 'backlog');
    expect(second.map((d) => d.eventId)).toEqual(first.map((d) => d.eventId + 10));
    expect(await rowsOf('backlog')).toEqual({ n: 20 });
  });

  it('reads each claimed event by its key, not the whole log', async () => {
    await endpoint('long-log');
    await events(20_000);
    await run(sql`analyze events`);
    await run(sql`update webhook_endpoints set fanned_out_through = fanned_out_through + 19990
      where id = 'long-log'`);
    const { db } = database.handle;
    const settled = await settledEvents(db);
    const scans = statementOf(sql`select seq_scan from pg_stat_xact_user_tables
      where relname = 'events'`);
    const [claimed, seqScans] = await transaction(db, async (tx) => [
      await claimDeliveries(tx, { limit: 100, leaseSeconds: 8, settled }),
      (await tx.rows(scans))[0]?.[0],
    ]);
    expect(ofEndpoint(claimed, 'long-log')).toHaveLength(10);
    expect(Number(seqScans)).toBe(0);
  });

  it('has one attempt in flight for an endpoint that is failing', async () => {
    await endpoint('failing', { failing: true });
    await events(5);
    expect(ofEndpoint(await claim(), 'failing')).toHaveLength(1);
    expect(ofEndpoint(await claim(), 'failing')).toHaveLength(0);
  });

  it('skips the types an endpoint did not ask for, and loses no event under a small limit', async () => {
    await endpoint('created', { types: '{pet.created}' });
    await endpoint('every');
    await events(3, 'pet.updated');
    await events(4);
    await events(3, 'pet.updated');
    const seen = new Map<string, string[]>();
    for (let round = 0; round < 20; round++) {
      const claimed = await claim(3);
      expect(claimed.length).toBeLessThanOrEqual(3);
      for (const delivery of claimed) {
        seen.set(delivery.endpointId, [...(seen.get(delivery.endpointId) ?? []), delivery.type]);
        await succeeded(delivery);
      }
    }
    expect(seen.get('created')).toEqual(Array(4).fill('pet.created'));
    expect([...(seen.get('every') ?? [])].sort()).toEqual([
      ...Array<string>(4).fill('pet.created'),
      ...Array<string>(6).fill('pet.updated'),
    ]);
  });
});
