import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/client.js';
import { executeRows } from '../../db/database.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { loadConformance } from '../helpers/conformance.js';
import {
  createPostgresDatabase,
  testDatabaseTarget,
  describeOnPostgres,
} from '../helpers/database.js';
import { newPet } from '../helpers/factories.js';
import { createHttpClients, type ApiClient } from '../helpers/http.js';
import { runBounded } from '../helpers/load.js';
import { useTestServer } from '../helpers/server.js';

/**
 * Real parallel requests against the store's writers: of many orders for one pet exactly one
 * wins, of many writers with one ETag exactly one wins, and a delete racing an order leaves
 * either a deleted pet with no order or an ordered pet that was not deleted. Run on the
 * project's database in-process, and on PostgreSQL across processes: WORKERS=2 and a second,
 * separately started instance on the same database.
 */
interface Store {
  /** One client per instance; request i goes to instance i mod n. */
  clients: ApiClient[];
  rows<T extends Record<string, unknown>>(query: SQL): Promise<T[]>;
}

const via = (store: Store, index: number): ApiClient =>
  store.clients[index % store.clients.length] as ApiClient;

/** How many times each value occurs, e.g. `{ 201: 1, 409: 49 }`. */
const tally = (values: (number | string)[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
};

async function createdPet(store: Store): Promise<{ pet: Pet; etag: string }> {
  const response = await via(store, 0)<Pet>('POST', '/v1/pets', { body: newPet() });
  expect(response.status).toBe(201);
  return { pet: response.body, etag: response.headers.get('etag') ?? '' };
}

async function ordersForOnePet(store: Store, count: number): Promise<void> {
  const { pet } = await createdPet(store);
  const statuses = await runBounded(count, count, async (index) => {
    const client = via(store, index);
    return (await client('POST', '/v1/store/orders', { body: { petId: pet.id } })).status;
  });
  expect(tally(statuses)).toEqual({ 201: 1, 409: count - 1 });
  const [row] = await store.rows<{ status: string; orders: number }>(
    sql`select p.status, (select count(*)::int from orders o where o.pet_id = p.id) as orders
        from pets p where p.id = ${pet.id} and p.deleted_at is null`,
  );
  expect(row).toEqual({ status: 'pending', orders: 1 });
}

async function patchesWithOneETag(store: Store, count: number): Promise<void> {
  const { pet, etag } = await createdPet(store);
  const answers = await runBounded(count, count, async (index) => {
    const response = await via(store, index)<Pet>('PATCH', `/v1/pets/${pet.id}`, {
      body: { name: `Writer ${index}` },
      headers: { 'if-match': etag },
    });
    return { status: response.status, name: response.body.name };
  });
  expect(tally(answers.map((answer) => answer.status))).toEqual({ 200: 1, 412: count - 1 });
  const [row] = await store.rows<{ name: string; version: number }>(
    sql`select name, version from pets where id = ${pet.id}`,
  );
  expect(row).toEqual({ name: answers.find((a) => a.status === 200)?.name, version: 2 });
}

/** Staggers the two sides of a race (the point of the test), never a wait for something. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function deletesRacingOrders(store: Store, pairs: number): Promise<void> {
  const pets = await runBounded(pairs, 5, async () => (await createdPet(store)).pet);
  const outcomes = await runBounded(pairs, pairs, async (index) => {
    const petId = pets[index]?.id ?? 0;
    const remove = () => via(store, index)('DELETE', `/v1/pets/${petId}`);
    const order = () => via(store, index + 1)('POST', '/v1/store/orders', { body: { petId } });
    // The delete leaves from 10 ms before the order to 90 ms after it: the early ones win, the
    // late ones find the order placed, and those in between meet it in flight.
    const offset = index < 4 ? (index - 4) * 2.5 : (index - 4) ** 2 * 0.4;
    const [deleted, placed] = await Promise.all([
      pause(Math.max(0, offset)).then(remove),
      pause(Math.max(0, -offset)).then(order),
    ]);
    return { petId, pair: `${deleted.status}+${placed.status}` };
  });
  const seen = tally(outcomes.map((outcome) => outcome.pair));
  console.info('delete racing placeOrder:', seen);
  // Both ways the race can end were met, so both were checked.
  expect(Object.keys(seen).sort()).toEqual(['204+422', '409+201']);
  const ids = outcomes.map((outcome) => outcome.petId);
  const rows = await store.rows<{ id: number; deleted: boolean; status: string; orders: number }>(
    sql`select p.id::int as id, p.deleted_at is not null as deleted, p.status,
          (select count(*)::int from orders o where o.pet_id = p.id) as orders
        from pets p where p.id in ${ids}`,
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const { petId, pair } of outcomes) {
    const row = byId.get(petId);
    expect(['204+422', '409+201'], `pet ${petId}`).toContain(pair);
    if (pair === '204+422') expect(row).toMatchObject({ deleted: true, orders: 0 });
    else expect(row).toMatchObject({ deleted: false, status: 'pending', orders: 1 });
  }
  const [orphans] = await store.rows<{ n: number }>(
    sql`select count(*)::int as n from orders o join pets p on p.id = o.pet_id
        where p.deleted_at is not null`,
  );
  expect(orphans?.n).toBe(0);
}

describe('the store under concurrent requests, in-process', () => {
  const server = useTestServer();
  const store: Store = {
    get clients() {
      return [server.api];
    },
    rows: (query) => executeRows(server.database.handle.db, query),
  };

  it('gives 1 of 50 concurrent orders for one pet a 201 and 49 a 409', async () => {
    await ordersForOnePet(store, 50);
  });

  it('lets 1 of 20 concurrent PATCHes with one If-Match through and answers 19 with 412', async () => {
    await patchesWithOneETag(store, 20);
  });

  it('never leaves an order on a deleted pet when deletes race orders', async () => {
    await deletesRacingOrders(store, 20);
  });
});

const KEY = 'store-concurrency-key-0123456789';
const target = testDatabaseTarget();

// Several processes need a shared server; the embedded database serves one process only.
describeOnPostgres('the store across processes on PostgreSQL', () => {
  const cleanups: (() => Promise<void>)[] = [];
  const servers: Record<'cluster' | 'single', ChildServer[]> = { cluster: [], single: [] };
  const databases: DatabaseHandle[] = [];
  const rows: Store['rows'] = (query) => {
    const [database] = databases;
    if (!database) throw new Error('the database is used before beforeAll opened it');
    return executeRows(database.db, query);
  };
  const stores: Record<'cluster' | 'both', Store> = {
    cluster: { clients: [], rows },
    both: { clients: [], rows },
  };

  beforeAll(async () => {
    if (target.kind !== 'postgres') return;
    const { url, drop } = await createPostgresDatabase(target);
    cleanups.push(drop);
    const env = { DATABASE_URL: url, API_KEYS: KEY, RATE_LIMIT: 'off' };
    const started = await Promise.all([
      spawnServer({ ...env, WORKERS: '2' }, { listeners: 2 }),
      spawnServer(env),
    ]);
    cleanups.unshift(...started.map((server) => () => server.stop()));
    const [cluster, single] = started;
    servers.cluster.push(cluster);
    servers.single.push(single);
    const database = await openDatabase({ kind: 'postgres', url, poolMax: 2 });
    databases.push(database);
    cleanups.unshift(() => database.close());
    const clientOf = async (server: ChildServer) =>
      createHttpClients(server.origin, await loadConformance(server.origin), KEY).api;
    const [clusterApi, singleApi] = await Promise.all([clientOf(cluster), clientOf(single)]);
    stores.cluster.clients = [clusterApi];
    stores.both.clients = [clusterApi, singleApi];
  }, 120_000);

  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it.each(['cluster', 'both'] as const)(
    'gives 1 of 50 concurrent orders a 201 (%s)',
    async (name) => {
      await ordersForOnePet(stores[name], 50);
    },
  );

  it('lets 1 of 20 PATCHes with one If-Match through, across both instances', async () => {
    await patchesWithOneETag(stores.both, 20);
  });

  it('never leaves an order on a deleted pet, across both instances', async () => {
    await deletesRacingOrders(stores.both, 20);
  });

  it('served those orders from every process: both workers and the other instance', async () => {
    const pids = (server: ChildServer) => {
      const lines = server.logs.filter((line) => line.route === '/store/orders');
      return new Set(lines.map((line) => line.pid));
    };
    // Log lines trail responses (buffered up to 500 ms): until they are in.
    await vi.waitFor(
      () => {
        expect(pids(servers.cluster[0] as ChildServer).size).toBe(2);
      },
      {
        timeout: 5_000,
      },
    );
    await vi.waitFor(
      () => {
        expect(pids(servers.single[0] as ChildServer).size).toBe(1);
      },
      {
        timeout: 5_000,
      },
    );
  });
});
