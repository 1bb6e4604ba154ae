import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { executeRows } from '../../db/database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/** The production timeout: a lease tied to it would last 35 s. */
const TIMEOUT_MS = 15_000;
const SLOW_ANSWER_MS = 11_000;

describe('webhook leases, two instances on one database', () => {
  let database: TestDatabase;
  let first: TestServer;
  let second: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    database = await createTestDatabase();
    const options = {
      database,
      keepDatabase: true,
      webhooks: { allowPrivate: true, timeoutMs: TIMEOUT_MS, pollMs: 20 },
    };
    first = await startTestServer(options);
    second = await startTestServer(options);
    // The first attempt takes longer than a lease; the endpoint is healthy otherwise.
    receiver = await startReceiver((n) =>
      n === 0
        ? new Promise((resolve) =>
            setTimeout(() => {
              resolve(200);
            }, SLOW_ANSWER_MS),
          )
        : 200,
    );
  });
  afterAll(async () => {
    await receiver.close();
    await first.close();
    await second.close();
    await database.destroy();
  });

  it('keeps a long attempt its worker’s, on a lease short enough for a quick takeover', async () => {
    const created = await first.api('POST', '/v1/webhooks', {
      body: { url: receiver.url, types: ['pet.created'] },
    });
    expect(created.status).toBe(201);
    await first.api('POST', '/v1/pets', { body: { name: 'Slow', categoryId: 1 } });
    await receiver.waitFor(1);
    // A worker that died now would leave at most 8 s of lease behind, not 35.
    const [lease] = await executeRows<{ seconds: number }>(
      database.handle.db,
      sql`select extract(epoch from lease_until - now())::float8 as seconds
          from webhook_deliveries where status = 'pending'`,
    );
    expect(lease?.seconds).toBeLessThanOrEqual(8);
    await vi.waitFor(
      async () => {
        const [row] = await executeRows<{ status: string }>(
          database.handle.db,
          sql`select status::text from webhook_deliveries`,
        );
        expect(row?.status).toBe('succeeded');
      },
      { timeout: TIMEOUT_MS + 5_000, interval: 100 },
    );
    // Renewed while it ran: neither instance took the delivery over and sent it again.
    expect(receiver.count()).toBe(1);
  }, 40_000);
});

describe('a webhook lease its own worker took over', () => {
  let database: TestDatabase;
  let server: TestServer;
  let receiver: Receiver;
  const answers: ((status: number) => void)[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startTestServer({
      database,
      webhooks: { allowPrivate: true, timeoutMs: 60_000, pollMs: 20 },
    });
    // The first two attempts wait for the test to answer them.
    receiver = await startReceiver((n) =>
      n < 2 ? new Promise((resolve) => answers.push(resolve)) : 200,
    );
  });
  afterAll(async () => {
    for (const answer of answers) answer(200);
    await receiver.close();
    await server.close();
  });

  const deliveryRow = async () => {
    const [row] = await executeRows<{ attempts: number; lease: string }>(
      database.handle.db,
      sql`select attempts, lease_until::text as lease from webhook_deliveries`,
    );
    return row;
  };
  const lostAttempts = async () => {
    const metric = server.app.metrics.registry.getSingleMetric('petstore_webhook_attempts_total');
    const values = (await metric?.get())?.values ?? [];
    return values.find((value) => value.labels.outcome === 'lost')?.value ?? 0;
  };

  it('keeps renewing the newer attempt after the older one ends', async () => {
    await server.api('POST', '/v1/webhooks', {
      body: { url: receiver.url, types: ['pet.created'] },
    });
    await server.api('POST', '/v1/pets', { body: { name: 'Twice', categoryId: 1 } });
    await receiver.waitFor(1);
    // The first attempt's lease runs out behind its worker's back (as a database stalled past
    // the renewals would leave it), so the same worker claims the delivery again.
    await vi.waitFor(
      async () => {
        await executeRows(
          database.handle.db,
          sql`update webhook_deliveries set lease_until = now() - interval '1 second'
              where attempts = 1`,
        );
        await receiver.waitFor(2, 1_500);
      },
      { timeout: 30_000 },
    );
    answers[0]?.(200);
    await vi.waitFor(
      async () => {
        expect(await lostAttempts()).toBe(1);
      },
      { timeout: 10_000 },
    );
    // The second attempt still runs: its lease is renewed, more than once, and not taken over.
    const leases = new Set<string>();
    await vi.waitFor(
      async () => {
        const row = await deliveryRow();
        expect(row?.attempts).toBe(2);
        if (row) leases.add(row.lease);
        expect(leases.size).toBeGreaterThanOrEqual(3);
      },
      { timeout: 15_000, interval: 200 },
    );
    expect(receiver.count()).toBe(2);
  }, 70_000);
});
