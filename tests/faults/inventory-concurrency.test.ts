import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/client.js';
import { executeRows } from '../../db/database.js';
import type { Database } from '../../db/database.js';
import type { Inventory } from '../../server/domain/schemas/inventory.js';
import type { Order } from '../../server/domain/schemas/order.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { loadConformance } from '../helpers/conformance.js';
import { createPostgresDatabase, describeOnPostgres, postgresTarget } from '../helpers/database.js';
import { newPet } from '../helpers/factories.js';
import { createHttpClients, type ApiClient } from '../helpers/http.js';
import { runBounded } from '../helpers/load.js';
import { useTestServer } from '../helpers/server.js';

/**
 * Many writers at once, each moving pets between statuses in every way the service can (create,
 * update, delete, orders placed, delivered, cancelled): afterwards the inventory equals a count
 * of every live pet. In-process on the project's database, and on PostgreSQL from two server
 * processes on one database, so the slots are written from several connections at once.
 */
const WRITERS = 16;
const ROUNDS = 6;

async function fullCount(db: Database): Promise<Inventory> {
  const rows = await executeRows<{ status: keyof Inventory; n: number }>(
    db,
    sql`select status, count(*)::int as n from pets where deleted_at is null group by status`,
  );
  const counts = { available: 0, pending: 0, sold: 0 };
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}

/** One writer's round: every kind of change, each request on the next client in turn. */
async function churn(clients: ApiClient[], writer: number): Promise<void> {
  let turn = writer;
  const next = () => clients[turn++ % clients.length] as ApiClient;
  const created = async (status: Pet['status']) =>
    (await next()<Pet>('POST', '/v1/pets', { body: newPet({ status }) })).body;
  const a = await created('available');
  const b = await created('pending');
  await created('sold');
  await next()('PATCH', `/v1/pets/${b.id}`, { body: { status: 'available' } });
  await next()('DELETE', `/v1/pets/${b.id}`);
  const order = (await next()<Order>('POST', '/v1/store/orders', { body: { petId: a.id } })).body;
  if (writer % 2 === 0) {
    await next()('PATCH', `/v1/store/orders/${order.id}`, { body: { status: 'cancelled' } });
  } else {
    await next()('PATCH', `/v1/store/orders/${order.id}`, { body: { status: 'approved' } });
    await next()('PATCH', `/v1/store/orders/${order.id}`, { body: { status: 'delivered' } });
  }
}

async function churnAndCompare(clients: ApiClient[], db: Database): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    await runBounded(WRITERS, WRITERS, (writer) => churn(clients, writer + round * WRITERS));
  }
  for (const client of clients) {
    const response = await client<Inventory>('GET', '/v1/store/inventory');
    expect(response.body).toEqual(await fullCount(db));
  }
  const counts = await fullCount(db);
  expect(counts).toEqual({
    available: WRITERS * ROUNDS * 0.5,
    pending: 0,
    sold: WRITERS * ROUNDS * 1.5,
  });
}

/**
 * The churn is ~800 requests: 10 s on a quiet machine, past the default 30 s when other test
 * files and processes hold the cores. The test is about the counts, not the time.
 */
const CHURN_TIMEOUT_MS = 120_000;

describe('the inventory under concurrent writers, in-process', () => {
  const server = useTestServer();

  it(
    'equals a full count after every kind of change from many writers at once',
    async () => {
      await churnAndCompare([server.api], server.database.handle.db);
    },
    CHURN_TIMEOUT_MS,
  );
});

const KEY = 'inventory-concurrency-key-0123456789';

describeOnPostgres('the inventory across two processes', () => {
  const cleanups: (() => Promise<void>)[] = [];
  const clients: ApiClient[] = [];
  let database: DatabaseHandle | undefined;

  beforeAll(async () => {
    const { url, drop } = await createPostgresDatabase(postgresTarget());
    cleanups.push(drop);
    const env = { DATABASE_URL: url, API_KEYS: KEY, RATE_LIMIT: 'off' };
    const started: ChildServer[] = await Promise.all([spawnServer(env), spawnServer(env)]);
    cleanups.unshift(...started.map((server) => () => server.stop()));
    database = await openDatabase({ kind: 'postgres', url, poolMax: 2 });
    const opened = database;
    cleanups.unshift(() => opened.close());
    for (const server of started) {
      const conformance = await loadConformance(server.origin);
      clients.push(createHttpClients(server.origin, conformance, KEY).api);
    }
  }, 120_000);

  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('equals a full count after both processes changed pets at once', async () => {
    if (!database) throw new Error('beforeAll did not open the database');
    await churnAndCompare(clients, database.db);
  });
});
