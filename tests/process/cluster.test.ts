import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPostgresDatabase, describeOnPostgres, postgresTarget } from '../helpers/database.js';
import { runChildServer, spawnServer, type ChildServer } from '../helpers/child-server.js';
import { rawRequest } from '../helpers/http.js';

const KEY = 'cluster-test-key-0123456789';
const auth = { authorization: `Bearer ${KEY}` };

describe('WORKERS on the embedded database', () => {
  it('refuses WORKERS=2 with a clear message and a non-zero exit', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'petstore-workers-'));
    try {
      const { code, output } = await runChildServer({ WORKERS: '2', PGLITE_DIR: dataDir });
      expect(code).toBe(78);
      expect(output).toContain('WORKERS=2 needs DATABASE_URL');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** Which process served each request, from the request log lines (they carry pid). */
function servingPids(server: ChildServer, requestIds: readonly string[]): Set<unknown> {
  const wanted = new Set(requestIds);
  return new Set(
    server.logs.filter((line) => wanted.has(line.reqId as string)).map((line) => line.pid),
  );
}

function allLogged(server: ChildServer, requestIds: readonly string[]): boolean {
  const logged = new Set(server.logs.map((line) => line.reqId));
  return requestIds.every((id) => logged.has(id));
}

async function spread(server: ChildServer, label: string, count: number): Promise<Set<unknown>> {
  const ids = Array.from({ length: count }, (_, i) => `${label}-${i}`);
  const responses = await Promise.all(
    ids.map((id) =>
      rawRequest(server.origin, '/v1/pets?limit=1', { headers: { ...auth, 'x-request-id': id } }),
    ),
  );
  expect(responses.map((response) => response.status)).toEqual(Array(count).fill(200));
  // Log lines trail responses: written when a response finishes, and buffered up to 500 ms.
  await server.waitForLog(() => allLogged(server, ids), 5_000);
  return servingPids(server, ids);
}

// Several processes need a shared server; the embedded database serves one process only.
describeOnPostgres('WORKERS=2 on PostgreSQL', () => {
  let url: string;
  let drop: () => Promise<void>;
  let server: ChildServer;

  beforeAll(async () => {
    ({ url, drop } = await createPostgresDatabase(postgresTarget()));
    // Hundreds of creates from one key would meet the rate limit, which is not under test here.
    server = await spawnServer(
      { DATABASE_URL: url, API_KEYS: KEY, WORKERS: '2', RATE_LIMIT: 'off' },
      { listeners: 2 },
    );
  }, 60_000);
  afterAll(async () => {
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    await drop();
  });

  it('serves requests from both workers', async () => {
    expect((await spread(server, 'spread', 40)).size).toBe(2);
  });

  it('replaces a killed worker and loses no acknowledged request', async () => {
    const workers = server.logs.filter((line) => line.msg === 'worker started');
    const victim = Number(workers[0]?.workerPid);
    const acknowledged: number[] = [];
    let failed = 0;
    let stop = false;
    const writer = async (lane: number) => {
      for (let i = 0; !stop && i < 500; i++) {
        const body = JSON.stringify({ name: `lane-${lane}-${i}`, categoryId: 3 });
        const headers = { ...auth, 'content-type': 'application/json' };
        const response = await rawRequest(server.origin, '/v1/pets', {
          method: 'POST',
          headers,
          body,
          timeoutMs: 3_000,
        }).catch(() => undefined);
        if (response?.status === 201)
          acknowledged.push((JSON.parse(response.body) as { id: number }).id);
        else failed++;
      }
    };
    const lanes = Array.from({ length: 4 }, (_, lane) => writer(lane));
    await vi.waitFor(
      () => {
        expect(acknowledged.length).toBeGreaterThanOrEqual(40);
      },
      { timeout: 10_000, interval: 20 },
    );
    process.kill(victim, 'SIGKILL');
    const replaced = await server.waitForLog(
      (line) =>
        line.msg === 'worker started' &&
        Number(line.workerPid) !== victim &&
        !workers.includes(line),
      15_000,
    );
    await server.waitForLog((line) => line.msg === 'listening' && line.pid === replaced.workerPid);
    stop = true;
    await Promise.all(lanes);
    console.info(
      `killed worker ${victim}: ${acknowledged.length} creates acknowledged, ${failed} failed`,
    );

    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      const stored = new Set(
        (await sql<{ id: string }[]>`select id from pets`).map((row) => Number(row.id)),
      );
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      await sql.end();
    }
    const pids = await spread(server, 'after-kill', 40);
    expect(pids.has(replaced.workerPid)).toBe(true);
    expect(pids.has(victim)).toBe(false);
  }, 60_000);
});
