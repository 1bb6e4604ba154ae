import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { describeOnPostgres } from '../helpers/database.js';
import { freePort } from '../helpers/ports.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { timedRequest } from '../helpers/timed-request.js';

/** The contract's bound for a lost database, plus room for a loaded two-core machine. */
const ANSWER_WITHIN_MS = 5_000 + 1_500;
const CLIENTS = 10;

interface Outcome {
  status: number;
  ms: number;
}

function timed(server: TestServer, method: string, path: string, body?: unknown) {
  const { origin, conformance } = server;
  return timedRequest(origin, path, { method, body, key: TEST_KEY, conformance });
}

/** Clients creating and listing in a loop until `until` resolves; bounded by `maxEach` each. */
async function load(server: TestServer, until: Promise<unknown>, maxEach = 400) {
  let done = false;
  void until.finally(() => (done = true));
  const outcomes: Outcome[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; i < maxEach && !done; i++) {
        outcomes.push(
          i % 2
            ? await timed(server, 'GET', '/v1/pets?limit=5')
            : await timed(server, 'POST', '/v1/pets', {
                name: `outage ${client}.${i}`,
                categoryId: 1,
              }),
        );
      }
    }),
  );
  return outcomes;
}

async function readyStatus(server: TestServer): Promise<number> {
  return (await fetch(`${server.origin}/readyz`, { signal: AbortSignal.timeout(10_000) })).status;
}

/** When the first /readyz probe that answered 200 was sent; fails after timeoutMs. */
async function readyAgain(server: TestServer, timeoutMs: number): Promise<number> {
  return vi.waitFor(
    async () => {
      const started = Date.now();
      expect(await readyStatus(server)).toBe(200);
      return started;
    },
    { timeout: timeoutMs, interval: 200 },
  );
}

async function serverOn(url: string): Promise<TestServer> {
  const options = { kind: 'postgres' as const, url, poolMax: 5 };
  const handle = await openDatabase(options);
  return startTestServer({ database: { handle, options, destroy: () => handle.close() } });
}

describe('a database that cannot be reached at all', () => {
  it('answers 503 fast on requests and /readyz, never 500 and never a hang', async () => {
    const server = await serverOn(`postgres://postgres@127.0.0.1:${await freePort()}/none`);
    try {
      const create = await timed(server, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 });
      const list = await timed(server, 'GET', '/v1/pets');
      expect([create.status, list.status]).toEqual([503, 503]);
      expect(Math.max(create.ms, list.ms)).toBeLessThan(ANSWER_WITHIN_MS);
      for (let probe = 0; probe < 4; probe++) expect(await readyStatus(server)).toBe(503);
      // Probes come constantly: the readiness change is logged once, and no probe writes an
      // error line (README: health routes log nothing of their own).
      const notReady = server.logs.filter((line) => String(line.msg).startsWith('not ready'));
      expect(notReady).toHaveLength(1);
      expect(server.logs.filter((line) => line.level === 50 && !line.reqId)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describeOnPostgres(
  'a PostgreSQL outage under load (a private server, never the shared one)',
  () => {
    let postgres: PrivatePostgres;
    let server: TestServer;

    beforeAll(async () => {
      postgres = await startPrivatePostgres();
      server = await serverOn(postgres.url);
      await server.database.handle.migrate();
    }, 90_000);
    afterAll(async () => {
      await server.close();
      await postgres.destroy();
    });

    it('fails fast with 503 while the server is down and recovers by itself when it returns', async ({
      annotate,
    }) => {
      const phases = { before: [] as Outcome[], during: [] as Outcome[], after: [] as Outcome[] };
      // Each phase is load for a set time (1 s, the outage and 2 s more, 1 s): the times are
      // how long the load runs, not waits for something to happen.
      phases.before = await load(server, new Promise((resolve) => setTimeout(resolve, 1_000)));

      const stopped = postgres.stop();
      phases.during = await load(
        server,
        stopped.then(() => new Promise((r) => setTimeout(r, 2_000))),
      );
      expect(await readyStatus(server)).toBe(503);

      await postgres.start();
      const restarted = Date.now();
      const back = await readyAgain(server, 30_000);
      phases.after = await load(server, new Promise((resolve) => setTimeout(resolve, 1_000)));

      // One line per failed request, naming its kind and code, never a pet's name or the SQL.
      const failures = server.logs.filter((line) => line.level === 50);
      expect(failures.length).toBeGreaterThan(0);
      for (const line of failures) {
        expect(line).toMatchObject({
          reqId: expect.any(String) as string,
          err: { kind: expect.any(String) as string },
        });
      }
      expect(JSON.stringify(server.logs)).not.toMatch(/outage \d|params|insert into|select "/i);
      expect(server.logs.filter((line) => String(line.msg).startsWith('not ready'))).toHaveLength(
        1,
      );

      const all = [...phases.before, ...phases.during, ...phases.after];
      expect(all.filter((o) => ![200, 201, 503].includes(o.status))).toEqual([]);
      expect(phases.during.filter((o) => o.status === 503).length).toBeGreaterThan(0);
      expect(Math.max(...phases.during.map((o) => o.ms))).toBeLessThan(ANSWER_WITHIN_MS);
      expect(phases.after.length).toBeGreaterThan(0);
      expect(phases.after.every((o) => o.status < 300)).toBe(true);
      await annotate(
        `outage: ${phases.during.length} requests, slowest answer ${Math.round(Math.max(...phases.during.map((o) => o.ms)))} ms; ready again ${back - restarted} ms after the database restarted`,
      );
    }, 120_000);

    it('answers 503 within the bound while the server hangs, and recovers when it wakes', async ({
      annotate,
    }) => {
      expect((await timed(server, 'GET', '/v1/pets')).status).toBe(200);
      postgres.freeze();
      let frozen: Outcome[];
      try {
        frozen = await Promise.all(
          Array.from({ length: CLIENTS }, (_, i) =>
            i % 2
              ? timed(server, 'GET', '/v1/pets')
              : timed(server, 'POST', '/v1/pets', { name: `frozen ${i}`, categoryId: 1 }),
          ),
        );
        const started = performance.now();
        expect(await readyStatus(server)).toBe(503);
        expect(performance.now() - started).toBeLessThan(ANSWER_WITHIN_MS);
      } finally {
        postgres.thaw();
      }
      expect(frozen.map((o) => o.status)).toEqual(frozen.map(() => 503));
      expect(Math.max(...frozen.map((o) => o.ms))).toBeLessThan(ANSWER_WITHIN_MS);
      await annotate(
        `frozen database: slowest 503 ${Math.round(Math.max(...frozen.map((o) => o.ms)))} ms`,
      );
      await readyAgain(server, 30_000);
      expect((await timed(server, 'GET', '/v1/pets')).status).toBe(200);
    }, 120_000);
  },
);
