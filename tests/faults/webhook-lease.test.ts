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
