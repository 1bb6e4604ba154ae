import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createPetstoreRestClient,
  createPetstoreTrpcClient,
  createPositionTracker,
} from '../../client/index.js';
import { describeOnPostgres } from '../helpers/database.js';
import { checkedFetch } from '../helpers/http.js';
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

/**
 * The typed clients against a service reading from two standbys, one applying each commit
 * 700 ms late: what a front-end gets with no code of its own.
 */
describeOnPostgres('the typed clients with read replicas (two standbys, one 700 ms late)', () => {
  let replication: Replication;
  let server: TestServer;

  beforeAll(async () => {
    replication = await startReplication([{}, { recovery_min_apply_delay: '700ms' }]);
    server = await replicaServer(replication.primary.url, {
      replicaUrls: replication.standbys.map((standby) => standby.url),
      // Both standbys qualify for reads without a position: the late one is 700 ms behind.
      maxLagMs: 5_000,
    });
    await replicasAre(server, 'healthy');
    await replicasCaughtUp(server, replication.primary.url);
  }, 120_000);
  afterAll(() =>
    cleanUp(
      () => server.close(),
      () => replication.destroy(),
    ),
  );

  const clients = (positions?: false) => {
    const fetch = checkedFetch(server.conformance);
    return {
      trpc: createPetstoreTrpcClient({
        url: `${server.origin}/trpc`,
        apiKey: TEST_KEY,
        fetch,
        ...(positions === false && { positions }),
      }),
      rest: createPetstoreRestClient({
        baseUrl: server.baseUrl,
        apiKey: TEST_KEY,
        fetch,
        ...(positions === false && { positions }),
      }),
    };
  };

  it('reads its own writes across both clients, and without positions it would not', async () => {
    const { trpc, rest } = clients();
    const blind = clients(false);
    let blindMisses = 0;
    for (let round = 0; round < 10; round++) {
      const pet = await trpc.pets.create.mutate({ name: `Own ${round}`, categoryId: 9 });
      expect((await trpc.pets.get.query({ petId: pet.id })).name).toBe(pet.name);
      // As the README's example does: created through tRPC, read back over REST.
      const same = await rest.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
      expect(same.data?.name).toBe(pet.name);
      const updated = await rest.PATCH('/pets/{petId}', {
        params: { path: { petId: pet.id } },
        body: { status: 'pending' },
      });
      expect(updated.response.status).toBe(200);
      const read = await rest.GET('/pets', { params: { query: { id: String(pet.id) } } });
      expect(read.data?.map((each) => each.status)).toEqual(['pending']);

      const written = await blind.trpc.pets.create.mutate({
        name: `Blind ${round}`,
        categoryId: 9,
      });
      const seen = await blind.rest.GET('/pets', { params: { query: { id: String(written.id) } } });
      if (seen.data?.length === 0) blindMisses++;
    }
    // The same reads without a position go wherever they may: the late standby misses writes.
    expect(blindMisses).toBeGreaterThan(0);
  });

  it('never goes back in time across standbys of different delay', async () => {
    const tracker = createPositionTracker();
    const reader = createPetstoreRestClient({
      baseUrl: server.baseUrl,
      apiKey: TEST_KEY,
      fetch: checkedFetch(server.conformance),
      positions: tracker,
    });
    const blind = clients(false).rest;
    const { trpc: writer } = clients();
    const stop = new AbortController();
    const writes = (async () => {
      for (let i = 0; !stop.signal.aborted; i++)
        await writer.pets.create.mutate({ name: `Tick ${i}`, categoryId: 2 });
    })();
    const before = servedBy(server);
    let last = 0;
    let lastBlind = 0;
    let regressions = 0;
    let blindRegressions = 0;
    try {
      for (let read = 0; read < 60; read++) {
        const { data } = await reader.GET('/store/inventory');
        const count = data?.available ?? 0;
        if (count < last) regressions++;
        last = Math.max(last, count);
        // Two blind reads a round: replicas take turns, and the positioned read between rounds
        // can otherwise leave every blind read on the same standby.
        for (let turn = 0; turn < 2; turn++) {
          const blindCount = (await blind.GET('/store/inventory')).data?.available ?? 0;
          if (blindCount < lastBlind) blindRegressions++;
          lastBlind = Math.max(lastBlind, blindCount);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      stop.abort();
      await writes;
    }
    expect(regressions).toBe(0);
    expect(tracker.latest).toMatch(/^[0-9a-f]{16}$/);
    // Reads spread over both standbys: without positions the late one takes the store back.
    expect(blindRegressions).toBeGreaterThan(0);
    const after = servedBy(server);
    for (const { name } of server.database.handle.replicas?.status() ?? []) {
      expect((after[name] ?? 0) - (before[name] ?? 0), name).toBeGreaterThan(0);
    }
  });
});
