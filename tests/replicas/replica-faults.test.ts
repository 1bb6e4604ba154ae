import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPetstoreRestClient } from '../../client/index.js';
import { describeOnPostgres } from '../helpers/database.js';
import { checkedFetch } from '../helpers/http.js';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import {
  cleanUp,
  replicaServer,
  replicasAre,
  replicasCaughtUp,
  servedBy,
  startReplication,
  type Replication,
} from '../helpers/replication.js';
import { TEST_KEY, type TestServer } from '../helpers/server.js';

interface Tally {
  pairs: number;
  errors: string[];
  stale: number;
}

/**
 * Clients that each create a pet and read it back at once through the typed REST client
 * (which sends the position it was answered), until `stop` aborts.
 */
async function writeThenRead(server: TestServer, clients: number, stop: AbortSignal) {
  const tally: Tally = { pairs: 0, errors: [], stale: 0 };
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      const rest = createPetstoreRestClient({
        baseUrl: server.baseUrl,
        apiKey: TEST_KEY,
        fetch: checkedFetch(server.conformance),
      });
      for (let i = 0; !stop.aborted; i++) {
        const created = await rest.POST('/pets', {
          body: { name: `C${client}-${i}`, categoryId: 5 },
        });
        if (!created.data) {
          tally.errors.push(`create ${created.response.status}`);
          continue;
        }
        const read = await rest.GET('/pets', {
          params: { query: { id: String(created.data.id) } },
        });
        if (!read.data) tally.errors.push(`read ${read.response.status}`);
        else if (read.data.length !== 1) tally.stale++;
        tally.pairs++;
      }
    }),
  );
  return tally;
}

const forMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeOnPostgres('a standby stopped and restarted under load, and one behind PgBouncer', () => {
  let replication: Replication;
  let pooler: PgBouncer;
  let server: TestServer;
  let pooled: TestServer;

  beforeAll(async () => {
    replication = await startReplication([{}, {}]);
    const [first, second] = replication.standbys;
    server = await replicaServer(replication.primary.url, { replicaUrls: [first?.url ?? ''] });
    pooler = await startPgBouncer(second?.url ?? '');
    pooled = await replicaServer(replication.primary.url, {
      replicaUrls: [pooler.pooled(second?.url ?? '')],
      migrate: false,
    });
    await Promise.all([server, pooled].map((each) => replicasAre(each, 'healthy')));
    await replicasCaughtUp(server, replication.primary.url);
    await replicasCaughtUp(pooled, replication.primary.url);
  }, 120_000);
  afterAll(() =>
    cleanUp(
      () => server.close(),
      () => pooled.close(),
      () => pooler.stop(),
      () => replication.destroy(),
    ),
  );

  it('answers every request, none stale, while its standby stops and comes back', async () => {
    const standby = replication.standbys[0];
    if (!standby) throw new Error('no standby');
    const name = server.database.handle.replicas?.status()[0]?.name ?? '';
    const stop = new AbortController();
    const load = writeThenRead(server, 4, stop.signal);
    try {
      await forMs(500);
      const before = servedBy(server)[name] ?? 0;
      expect(before).toBeGreaterThan(0);
      await standby.stop();
      await forMs(1_000);
      // Readiness is the primary's alone.
      expect((await fetch(`${server.origin}/readyz`)).status).toBe(200);
      const metrics = await server.app.metrics.registry.metrics();
      expect(metrics).toContain(`petstore_replica_state{replica="${name}",state="down"} 1`);
      // A read cut by the stop runs again on the primary; whether one was in flight is chance.
      expect(metrics).toContain('# TYPE petstore_replica_fallbacks_total counter');
      await standby.start();
      await replicasAre(server, 'healthy');
      const back = servedBy(server)[name] ?? 0;
      await forMs(500);
      // Reads went back to the standby once the background check found it again.
      expect(servedBy(server)[name] ?? 0).toBeGreaterThan(back);
    } finally {
      stop.abort();
    }
    const tally = await load;
    expect(tally.errors).toEqual([]);
    expect(tally.stale).toBe(0);
    expect(tally.pairs).toBeGreaterThan(20);
  });

  it('sells a pet once when many order it at once through instances reading from standbys', async () => {
    const pet = await server.api<{ id: number }>('POST', '/v1/pets', {
      body: { name: 'Once', categoryId: 5 },
    });
    const orders = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? server : pooled).api('POST', '/v1/store/orders', {
          body: { petId: pet.body.id },
        }),
      ),
    );
    expect(orders.map((order) => order.status).sort()).toEqual([
      201,
      ...Array.from({ length: 11 }, () => 409),
    ]);
  });

  it('reads its own writes from a standby behind PgBouncer in transaction mode', async () => {
    const name = pooled.database.handle.replicas?.status()[0]?.name ?? '';
    const before = servedBy(pooled)[name] ?? 0;
    const stop = new AbortController();
    const load = writeThenRead(pooled, 3, stop.signal);
    await forMs(1_000);
    stop.abort();
    const tally = await load;
    expect(tally.errors).toEqual([]);
    expect(tally.stale).toBe(0);
    expect((servedBy(pooled)[name] ?? 0) - before).toBeGreaterThan(tally.pairs / 2);
  });
});
