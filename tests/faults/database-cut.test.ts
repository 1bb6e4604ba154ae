import { afterEach, beforeEach, describe, expect, it, vi, type TestContext } from 'vitest';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { createPostgresDatabase, testDatabaseTarget } from '../helpers/database.js';
import { rawRequest } from '../helpers/http.js';
import { openStream } from '../helpers/sse.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/** The contract's bounds (5 s), plus room for a loaded two-core machine. */
const WITHIN_MS = 5_000 + 1_500;
const KEY = 'database-cut-key-0123456789';
const CLIENTS = 6;
const STREAMS = 4;
const auth = { authorization: `Bearer ${KEY}` };
const target = testDatabaseTarget();

interface Answer {
  status: number;
  ms: number;
  afterCut: boolean;
}

/** One request; a connection closed without an answer is status 0, for the test to report. */
async function call(server: ChildServer, method: string, path: string, body?: unknown) {
  const started = performance.now();
  const response = await rawRequest(server.origin, path, {
    method,
    headers: { ...auth, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).catch((error: unknown) => ({ status: 0, body: String(error) }));
  return { ...response, ms: performance.now() - started };
}

/**
 * The connections to PostgreSQL cut (a proxy between the service and a database of its own)
 * while event streams are open and orders are in flight: the process stays up, every answer
 * is a success or a 503 within 5 s, and writes work within 5 s of the database returning.
 */
describe.runIf(target.kind === 'postgres')('PostgreSQL connections cut under load', () => {
  let proxy: TcpProxy;
  let url: string;
  let drop: () => Promise<void>;

  beforeEach(async () => {
    if (target.kind !== 'postgres') throw new Error('PostgreSQL only');
    const database = await createPostgresDatabase(target);
    drop = database.drop;
    const direct = new URL(database.url);
    proxy = await startTcpProxy(direct.hostname, Number(direct.port || 5432));
    direct.hostname = '127.0.0.1';
    direct.port = String(proxy.port);
    url = direct.toString();
  });
  afterEach(async () => {
    await proxy.close();
    await drop();
  });

  const cutUnderLoad = async (workers: number, { annotate }: TestContext) => {
    const server = await spawnServer(
      { DATABASE_URL: url, API_KEYS: KEY, WORKERS: String(workers), RATE_LIMIT: 'off' },
      { listeners: workers },
    );
    let stop = false;
    let load: Promise<unknown> = Promise.resolve();
    try {
      const streams = await Promise.all(
        Array.from({ length: STREAMS }, () =>
          openStream(server.origin, '/v1/events', { headers: auth }),
        ),
      );
      expect(streams.map((stream) => stream.status)).toEqual(streams.map(() => 200));
      const first = await call(server, 'POST', '/v1/pets', { name: 'first', categoryId: 1 });
      expect(first.status).toBe(201);
      await Promise.all(streams.map((stream) => stream.waitForFrames(1)));

      // Clients creating a pet and ordering it, until stopped; the cut comes once they run.
      const answers: Answer[] = [];
      let cut = false;
      let running: () => void = () => undefined;
      const started = new Promise<void>((resolve) => (running = resolve));
      const record = <T extends { status: number; ms: number }>(answer: T) => {
        answers.push({ status: answer.status, ms: answer.ms, afterCut: cut });
        if (answers.length === 2 * CLIENTS) running();
        return answer;
      };
      load = Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
          for (let i = 0; !stop; i++) {
            const pet = record(
              await call(server, 'POST', '/v1/pets', { name: `cut ${client}.${i}`, categoryId: 1 }),
            );
            if (pet.status !== 201) continue;
            const { id } = JSON.parse(pet.body) as { id: number };
            record(await call(server, 'POST', '/v1/store/orders', { petId: id }));
          }
        }),
      );
      await started;
      await proxy.cut();
      cut = true;
      const duringCut = () => answers.filter((answer) => answer.afterCut);
      await vi.waitFor(() => {
        expect(duringCut().filter((answer) => answer.status === 503).length).toBeGreaterThan(
          2 * CLIENTS,
        );
      }, 30_000);
      expect(server.child.exitCode).toBeNull();

      await proxy.restore();
      const restored = performance.now();
      await vi.waitFor(async () => {
        const pet = await call(server, 'POST', '/v1/pets', { name: 'marker', categoryId: 1 });
        expect(pet.status).toBe(201);
      }, WITHIN_MS);
      const recovered = performance.now() - restored;
      stop = true;
      await load;

      expect(server.logs.filter((line) => line.msg === 'worker died; replacing it')).toEqual([]);
      expect(server.output()).not.toMatch(/TypeError|uncaught/i);
      expect(answers.filter((answer) => ![201, 503].includes(answer.status))).toEqual([]);
      expect(Math.max(...duringCut().map((answer) => answer.ms))).toBeLessThan(WITHIN_MS);
      expect(recovered).toBeLessThan(WITHIN_MS);

      for (const stream of streams) stream.close();
      await annotate(
        `${duringCut().length} answers during the cut, slowest ${Math.round(Math.max(...duringCut().map((a) => a.ms)))} ms; writes ${Math.round(recovered)} ms after the database returned`,
      );
    } finally {
      stop = true;
      await load;
      await server.stop();
    }
  };

  it('keeps the process, answers 503, and recovers', async (context) => {
    await cutUnderLoad(1, context);
  }, 120_000);

  it('keeps every worker with WORKERS=2', async (context) => {
    await cutUnderLoad(2, context);
  }, 120_000);
});
