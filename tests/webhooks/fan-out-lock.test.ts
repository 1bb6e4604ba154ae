import postgres from 'postgres';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeOnPostgres } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

describeOnPostgres('a claim stuck on the deliveries table', () => {
  let server: TestServer;
  let receiver: Receiver;
  let session: postgres.Sql;

  beforeAll(async () => {
    server = await startTestServer({
      webhooks: { allowPrivate: true, pollMs: 20 },
    });
    receiver = await startReceiver();
    const { options } = server.database;
    if (options.kind !== 'postgres') throw new Error('PostgreSQL only');
    // One connection holds the lock, the other watches the claim wait for it.
    session = postgres(options.url, { max: 2, onnotice: () => undefined });
  });
  afterAll(async () => {
    await session.end({ timeout: 1 });
    await server.close();
    await receiver.close();
  });

  it('holds nothing a write waits on: pets are created while it waits', async () => {
    const created = await server.api('POST', '/v1/webhooks', {
      body: { url: receiver.url, types: ['pet.created'] },
    });
    expect(created.status).toBe(201);
    const ids = await session.reserve();
    try {
      // Another session holds the deliveries table: the next claim waits for it.
      await ids`begin`;
      await ids`lock table webhook_deliveries in exclusive mode`;
      const first = await server.api('POST', '/v1/pets', {
        body: { name: 'First', categoryId: 1 },
      });
      expect(first.status).toBe(201);
      await vi.waitFor(
        async () => {
          const [row] = await session<{ waiting: number }[]>`
            select count(*)::int as waiting from pg_locks
            where not granted and relation = 'webhook_deliveries'::regclass`;
          expect(row?.waiting).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 20 },
      );
      // Holding the log's barrier, the waiting claim would keep every write out (503s).
      const more = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          server.api('POST', '/v1/pets', { body: { name: `More ${i}`, categoryId: 1 } }),
        ),
      );
      expect(more.map((response) => response.status)).toEqual([201, 201, 201, 201, 201]);
    } finally {
      await ids`rollback`;
      ids.release();
    }
    await vi.waitFor(
      () => {
        expect(receiver.received.length).toBe(6);
      },
      { timeout: 20_000, interval: 50 },
    );
  });
});
