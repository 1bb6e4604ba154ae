import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnPostgres } from '../helpers/database.js';
import {
  cleanUp,
  onServer,
  replicaServer,
  replicasAre,
  servedBy,
  startReplication,
  type Replication,
} from '../helpers/replication.js';
import type { TestServer } from '../helpers/server.js';

const POSITION = 'petstore-position';

/** Positions are sixteen hexadecimal digits: they compare as strings. */
const atLeast = (answered: string | null, sent: string) => answered !== null && answered >= sent;

describeOnPostgres('reads on a hot standby (a private primary and standby, streaming)', () => {
  let replication: Replication;
  /** Two instances that allow 30 s of replay delay, and one that allows 300 ms. */
  let a: TestServer;
  let b: TestServer;
  let strict: TestServer;
  let standbyUrl: string;

  beforeAll(async () => {
    replication = await startReplication();
    standbyUrl = replication.standbys[0]?.url ?? '';
    const primary = replication.primary.url;
    a = await replicaServer(primary, { replicaUrls: [standbyUrl], maxLagMs: 30_000 });
    const others = { replicaUrls: [standbyUrl], migrate: false };
    b = await replicaServer(primary, { ...others, maxLagMs: 30_000 });
    strict = await replicaServer(primary, { ...others, maxLagMs: 300 });
    await Promise.all([a, b, strict].map((server) => replicasAre(server, 'healthy')));
  }, 120_000);
  afterAll(() =>
    cleanUp(
      () => a.close(),
      () => b.close(),
      () => strict.close(),
      () => replication.destroy(),
    ),
  );

  it('serves the contract reads from the replica, each answering the position it was served at', async () => {
    const created = await a.api<{ id: number }>('POST', '/v1/pets', {
      body: { name: 'Routed', categoryId: 4 },
    });
    expect(created.status).toBe(201);
    const position = created.headers.get(POSITION) ?? '';
    expect(position).toMatch(/^[0-9a-f]{16}$/);
    const order = await a.api<{ id: number }>('POST', '/v1/store/orders', {
      body: { petId: created.body.id },
    });
    expect(order.status).toBe(201);
    const latest = order.headers.get(POSITION) ?? '';
    expect(BigInt(`0x${latest}`)).toBeGreaterThan(BigInt(`0x${position}`));

    const before = servedBy(b);
    const reads = [
      `/v1/pets?id=${created.body.id}`,
      '/v1/pets?limit=5',
      `/v1/pets/${created.body.id}`,
      `/v1/pets/${created.body.id}/history`,
      '/v1/store/inventory',
      '/v1/store/orders',
      `/v1/store/orders/${order.body.id}`,
      `/trpc/pets.get?input=${encodeURIComponent(JSON.stringify({ petId: created.body.id }))}`,
      `/trpc/pets.listPage?input=${encodeURIComponent(JSON.stringify({ limit: 2 }))}`,
    ];
    for (const path of reads) {
      const response = await b.api('GET', path, { headers: { [POSITION]: latest } });
      expect(response.status, path).toBe(200);
      expect(atLeast(response.headers.get(POSITION), latest), path).toBe(true);
    }
    const after = servedBy(b);
    const name = b.database.handle.replicas?.status()[0]?.name ?? '';
    // The standby caught up within REPLICA_WAIT or was waited for; none went to the primary.
    expect((after[name] ?? 0) - (before[name] ?? 0)).toBe(reads.length);
    expect(after.primary ?? 0).toBe(before.primary ?? 0);
  });

  it('reads a write through another instance at once while replay is paused; without a position, stale only within REPLICA_MAX_LAG', async () => {
    await onServer(standbyUrl, 'select pg_wal_replay_pause()');
    try {
      const created = await a.api<{ id: number }>('POST', '/v1/pets', {
        body: { name: 'Paused', categoryId: 4 },
      });
      const position = created.headers.get(POSITION) ?? '';
      const path = `/v1/pets/${created.body.id}`;

      const own = await b.api('GET', path, { headers: { [POSITION]: position } });
      expect(own.status).toBe(200);
      expect(atLeast(own.headers.get(POSITION), position)).toBe(true);
      // tRPC reads the header the same way.
      const input = encodeURIComponent(JSON.stringify({ petId: created.body.id }));
      const viaTrpc = await b.api('GET', `/trpc/pets.get?input=${input}`, {
        headers: { [POSITION]: position },
      });
      expect(viaTrpc.status).toBe(200);

      // The replica's answer: it has not replayed the create, and 30 s of delay are allowed.
      expect((await b.api('GET', path)).status).toBe(404);
      // Once the replica is 300 ms behind, `strict` reads from the primary.
      await replicasAre(strict, 'lagging');
      expect((await strict.api('GET', path)).status).toBe(200);
    } finally {
      await onServer(standbyUrl, 'select pg_wal_replay_resume()');
    }
    await replicasAre(strict, 'healthy');
  });

  it('refuses a malformed position with 400 INVALID_POSITION on both surfaces', async () => {
    const rest = await b.api<{ code: string }>('GET', '/v1/pets', {
      headers: { [POSITION]: '0/16B3748' },
    });
    expect([rest.status, rest.body.code]).toEqual([400, 'INVALID_POSITION']);
    const trpc = await b.api<{ error: { data: { code: string } } }>(
      'GET',
      `/trpc/pets.list?input=${encodeURIComponent('{}')}`,
      { headers: { [POSITION]: 'x'.repeat(16) } },
    );
    expect([trpc.status, trpc.body.error.data.code]).toEqual([400, 'INVALID_POSITION']);
  });
});
