import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../server/domain/schemas/order.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { loadConformance, type Conformance } from '../helpers/conformance.js';
import { createPostgresDatabase, testDatabaseTarget } from '../helpers/database.js';
import { followEvents } from '../helpers/events.js';
import { newPet } from '../helpers/factories.js';
import { createHttpClients, type ApiClient } from '../helpers/http.js';
import { runBounded } from '../helpers/load.js';
import { openStream } from '../helpers/sse.js';

/**
 * The service behind PgBouncer in transaction mode with its default settings, and no direct
 * URL: every statement outside a transaction may reach another server connection. Two
 * instances (one with two workers) share the pooler; what they acknowledge must be there.
 */
const target = testDatabaseTarget();
const pooled = target.kind === 'postgres' && target.poolerUrl !== undefined;
const KEY = 'pooler-key-0123456789abcdef';

interface Instance {
  server: ChildServer;
  api: ApiClient;
  conformance: Conformance;
  origin: string;
}

describe.runIf(pooled)('behind PgBouncer in transaction mode (pgbouncer project only)', () => {
  const instances: Instance[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  let direct: postgres.Sql;
  const via = (index: number) => instances[index % instances.length] as Instance;

  beforeAll(async () => {
    if (target.kind !== 'postgres') return;
    const { url, directUrl, drop } = await createPostgresDatabase(target);
    cleanups.push(drop);
    const env = { DATABASE_URL: url, API_KEYS: KEY, RATE_LIMIT: 'off', EVENT_STREAMS_PER_KEY: '2' };
    // Started together: their migrations meet behind the pooler too.
    const servers = await Promise.all([
      spawnServer({ ...env, WORKERS: '2' }, { listeners: 2 }),
      spawnServer(env),
    ]);
    cleanups.unshift(...servers.map((server) => () => server.stop()));
    for (const server of servers) {
      const conformance = await loadConformance(server.origin);
      const { api } = createHttpClients(server.origin, conformance, KEY);
      instances.push({ server, api, conformance, origin: server.origin });
    }
    direct = postgres(directUrl, { max: 1, onnotice: () => undefined });
    cleanups.unshift(() => direct.end());
  }, 120_000);

  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('acknowledges only orders that committed, across both instances', async () => {
    const pets = await runBounded(40, 10, async (index) => {
      const created = await via(index).api<Pet>('POST', '/v1/pets', { body: newPet() });
      expect(created.status).toBe(201);
      return created.body;
    });
    const placed = await runBounded(pets.length, 20, async (index) => {
      const pet = pets[index] as Pet;
      return via(index + 1).api<Order>('POST', '/v1/store/orders', { body: { petId: pet.id } });
    });
    expect(placed.map((response) => response.status)).toEqual(pets.map(() => 201));
    for (const [index, response] of placed.entries()) {
      const order = await via(index).api<Order>('GET', `/v1/store/orders/${response.body.id}`);
      expect(order.status).toBe(200);
      const pet = await via(index).api<Pet>('GET', `/v1/pets/${response.body.petId}`);
      expect(pet.body.status).toBe('pending');
    }
  });

  it('sells one pet once: of 50 concurrent orders exactly one is 201', async () => {
    const { body: pet } = await via(0).api<Pet>('POST', '/v1/pets', { body: newPet() });
    const statuses = await runBounded(50, 50, async (index) => {
      return (await via(index).api('POST', '/v1/store/orders', { body: { petId: pet.id } })).status;
    });
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(49);
  });

  it("brings one instance's change to another's stream without LISTEN reaching it", async () => {
    const follower = await followEvents(via(1), KEY);
    try {
      const { body: pet } = await via(0).api<Pet>('POST', '/v1/pets', { body: newPet() });
      const events = await follower.until('pet.created', pet.id, 3_000);
      expect(events.at(-1)?.data).toEqual(pet);
    } finally {
      follower.close();
    }
  });

  it("holds one key's stream limit across both instances", async () => {
    const open = (index: number) =>
      openStream(via(index).origin, '/v1/events', { headers: { authorization: `Bearer ${KEY}` } });
    const held = [await open(0), await open(1)];
    expect(held.map((stream) => stream.status)).toEqual([200, 200]);
    const refused = await Promise.all([open(0), open(1)]);
    expect(refused.map((stream) => stream.status)).toEqual([429, 429]);
    held[0]?.close();
    await expect
      .poll(async () => {
        const next = await open(0);
        next.close();
        return next.status;
      })
      .toBe(200);
    held[1]?.close();
  });

  it('leaves no advisory lock held and no transaction open on the server', async () => {
    await expect
      .poll(
        () => direct<{ n: number }[]>`
          select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
          where l.locktype = 'advisory' and d.datname = current_database()`,
      )
      .toEqual([{ n: 0 }]);
    const open = await direct<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and state like 'idle in transaction%'`;
    expect(open).toEqual([{ n: 0 }]);
  });
});
