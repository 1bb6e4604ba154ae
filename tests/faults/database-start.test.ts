import { afterEach, beforeEach, expect, it, vi, type TestContext } from 'vitest';
import { spawnServer } from '../helpers/child-server.js';
import { describeOnPostgres } from '../helpers/database.js';
import { createProxiedDatabase, type ProxiedDatabase } from '../helpers/proxied-database.js';
import { timedRequest } from '../helpers/timed-request.js';

/** The contract's bounds (5 s), plus room for a loaded two-core machine. */
const ANSWER_WITHIN_MS = 5_000 + 1_500;
const READY_WITHIN_MS = 5_000 + 1_500;
const KEY = 'database-start-key-0123456789';
const auth = { key: KEY };

/**
 * The service started while PostgreSQL cannot be reached (a proxy in front of a fresh,
 * unmigrated database that refuses connections): it must start, answer /healthz 200 and all
 * else 503, and be ready within 5 s of the database answering, migrations applied meanwhile.
 */
describeOnPostgres('a service started while its database is unreachable', () => {
  let database: ProxiedDatabase;

  beforeEach(async () => {
    database = await createProxiedDatabase();
    await database.proxy.refuse();
  });
  afterEach(() => database.destroy());

  const startsAndRecovers = async (workers: number, { annotate }: TestContext) => {
    const server = await spawnServer(
      { DATABASE_URL: database.url, API_KEYS: KEY, WORKERS: String(workers), RATE_LIMIT: 'off' },
      { listeners: workers },
    );
    try {
      expect((await timedRequest(server.origin, '/healthz', auth)).status).toBe(200);
      const answers = [
        await timedRequest(server.origin, '/readyz', auth),
        await timedRequest(server.origin, '/v1/pets', auth),
        await timedRequest(server.origin, '/v1/pets', {
          ...auth,
          method: 'POST',
          body: { name: 'Rex', categoryId: 1 },
        }),
        await timedRequest(server.origin, '/v1/events', auth),
        await timedRequest(server.origin, '/trpc/pets.list?input=%7B%7D', auth),
      ];
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 503));
      for (const answer of answers.slice(1, 4)) {
        expect(JSON.parse(answer.body)).toMatchObject({
          code: 'SERVICE_UNAVAILABLE',
          status: 503,
        });
      }
      expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(ANSWER_WITHIN_MS);

      await database.proxy.restore();
      const restored = performance.now();
      // Ready on every process, not only the one that answered: requests on new connections
      // go to the workers in turn.
      await vi.waitFor(
        async () => {
          expect((await timedRequest(server.origin, '/readyz', auth)).status).toBe(200);
          for (let i = 0; i < 2 * workers; i++) {
            expect((await timedRequest(server.origin, '/v1/pets', auth)).status).toBe(200);
          }
        },
        { timeout: READY_WITHIN_MS, interval: 100 },
      );
      const readyAfter = performance.now() - restored;
      expect(readyAfter).toBeLessThan(READY_WITHIN_MS);
      await annotate(`ready ${Math.round(readyAfter)} ms after the database answered`);
      const created = await timedRequest(server.origin, '/v1/pets', {
        ...auth,
        method: 'POST',
        body: { name: 'Rex', categoryId: 1 },
      });
      expect(created.status).toBe(201);
      expect(server.child.exitCode).toBeNull();
    } finally {
      await server.stop();
    }
  };

  it('starts, answers 503 until the database answers, then serves', async (context) => {
    await startsAndRecovers(1, context);
  }, 90_000);

  it('starts with WORKERS=2, every worker answering 503 until the database answers', async (context) => {
    await startsAndRecovers(2, context);
  }, 90_000);

  it('exits 78 once the database answers and holds no API key, as it would have at start', async () => {
    const server = await spawnServer({ DATABASE_URL: database.url });
    expect((await timedRequest(server.origin, '/healthz', auth)).status).toBe(200);
    await database.proxy.restore();
    expect(await server.exited).toEqual({ code: 78, signal: null });
    expect(server.output()).toContain('No API key exists');
  }, 60_000);
});
