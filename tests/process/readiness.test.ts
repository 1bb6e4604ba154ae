import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/client.js';
import { createApp, type App } from '../../server/process/app.js';
import { createLogger } from '../../server/support/logger.js';
import { describeOnPostgres } from '../helpers/database.js';
import { createProxiedDatabase, type ProxiedDatabase } from '../helpers/proxied-database.js';
import { logSink, startTestServer, TEST_KEY } from '../helpers/server.js';
import { timedRequest } from '../helpers/timed-request.js';

const KEY = 'readiness-test-key-0123456789';

describe('GET /readyz while the database answers', () => {
  it('is 200 without a key, and probes leave no request log line', async () => {
    const server = await startTestServer();
    try {
      const response = await fetch(`${server.origin}/readyz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ready' });
      // A later request's line is there, so a probe line would have been too.
      const later = await fetch(`${server.origin}/v1/pets`, {
        headers: { authorization: `Bearer ${TEST_KEY}`, 'x-request-id': 'after-probe' },
      });
      expect(later.status).toBe(200);
      expect(server.logs.some((line) => line.reqId === 'after-probe')).toBe(true);
      expect(server.logs.filter((line) => line.route === '/readyz')).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

/** Only a networked database can vanish; PGlite lives inside the process. */
describeOnPostgres('readiness when PostgreSQL vanishes', () => {
  let proxied: ProxiedDatabase;
  let database: DatabaseHandle;
  let app: App;
  let origin: string;
  const { sink, logs } = logSink();

  beforeAll(async () => {
    proxied = await createProxiedDatabase();
    database = await openDatabase({ kind: 'postgres', url: proxied.url, poolMax: 4 });
    await database.migrate();
    app = createApp({
      database,
      logger: createLogger('info', sink),
      apiKeys: [KEY],
      publicBaseUrl: 'https://api.petstore.test/v1',
      trustProxy: false,
      rateLimit: 'off',
    });
    origin = `http://127.0.0.1:${(await app.listen(0, '127.0.0.1')).port}`;
  });
  afterAll(async () => {
    await app.close(1_000);
    await database.close();
    await proxied.destroy();
  });

  it('answers 200, then 503 while the database is gone, then 200 again by itself', async () => {
    expect((await timedRequest(origin, '/readyz')).status).toBe(200);

    await proxied.proxy.cut();
    const down = await timedRequest(origin, '/readyz');
    expect(down.status).toBe(503);
    expect(JSON.parse(down.body)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(down.ms).toBeLessThan(5_000);
    console.info(`/readyz answered 503 ${Math.round(down.ms)} ms after the database vanished`);
    for (let probe = 0; probe < 3; probe++) {
      expect((await timedRequest(origin, '/readyz')).status).toBe(503);
    }

    await proxied.proxy.restore();
    // A balancer's probes, until the first 200: the service must come back within 10 s.
    await vi.waitFor(
      async () => {
        expect((await timedRequest(origin, '/readyz')).status).toBe(200);
      },
      { timeout: 10_000, interval: 250 },
    );
    // Readiness probes are polled constantly; they must not flood the log: the change is
    // logged once each way, and a failing probe writes no error line of its own.
    expect(logs.filter((line) => line.route === '/readyz')).toEqual([]);
    const changes = logs.filter((line) => /^(not ready|ready again)/.test(String(line.msg)));
    expect(changes.map((line) => [line.level, line.msg])).toEqual([
      [40, 'not ready: the database is not answering'],
      [30, 'ready again: the database answers'],
    ]);
    expect(changes[0]?.err).toMatchObject({ kind: expect.any(String) as string });
    expect(logs.filter((line) => line.level === 50)).toEqual([]);
  });

  it.each([
    ['REST', '/v1/pets'],
    ['tRPC', `/trpc/pets.list?input=${encodeURIComponent('{}')}`],
  ])('logs a %s failure once, with its request id, kind and code', async (_, path) => {
    await proxied.proxy.cut();
    try {
      const requestId = `lost-db-${path.replace(/\W/g, '')}`;
      const { status, ms } = await timedRequest(origin, path, {
        key: KEY,
        headers: { 'x-request-id': requestId },
      });
      expect(status).toBeGreaterThanOrEqual(500);
      expect(ms).toBeLessThan(5_000);
      const errors = logs.filter((line) => line.level === 50 && line.reqId === requestId);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        msg: 'request failed: the database is unavailable',
        err: { kind: expect.any(String) as string, code: expect.any(String) as string },
      });
      expect(JSON.stringify(logs)).not.toContain(KEY);
    } finally {
      await proxied.proxy.restore();
    }
  });
});
