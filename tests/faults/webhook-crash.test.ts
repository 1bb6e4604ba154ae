import { afterEach, describe, expect, it } from 'vitest';
import { createChildDatabase, type ChildDatabase } from '../helpers/child-database.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { describeOnPostgres } from '../helpers/database.js';
import { runBounded } from '../helpers/load.js';
import { TEST_KEY } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { DEFAULT_TIMEOUT_SECONDS } from '../../server/webhooks/domain/settings.js';

const ENDPOINTS = 3;
const authorization = `Bearer ${TEST_KEY}`;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function childDatabase(): Promise<ChildDatabase> {
  const database = await createChildDatabase();
  cleanups.push(() => database.destroy());
  return database;
}

async function server(database: ChildDatabase, env: Record<string, string> = {}) {
  const child = await spawnServer({
    ...database.env,
    API_KEYS: TEST_KEY,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_DELAYS: '200ms,500ms,1s,1s,1s',
    WEBHOOK_TIMEOUT: '1s',
    ...env,
  });
  cleanups.push(() => child.kill());
  return child;
}

async function receivers(): Promise<Receiver[]> {
  const started = await Promise.all(Array.from({ length: ENDPOINTS }, () => startReceiver()));
  for (const receiver of started) cleanups.push(() => receiver.close());
  return started;
}

async function call(
  child: ChildServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${child.origin}${path}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: await response.json() };
}

/** Pet ids created, as each receiver saw their pet.created; fails on a webhook-id sent twice with another body. */
function createdPets(receiver: Receiver): Set<number> {
  const bodies = new Map<string, string>();
  const pets = new Set<number>();
  for (const { headers, body } of receiver.received) {
    const id = headers['webhook-id'] ?? '';
    expect(bodies.get(id) ?? body).toBe(body);
    bodies.set(id, body);
    const parsed = JSON.parse(body) as { type: string; data: { id: number } };
    if (parsed.type === 'pet.created') pets.add(parsed.data.id);
  }
  return pets;
}

async function everyoneHas(hooks: Receiver[], petIds: number[], timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const missing = hooks.map((hook) => {
      const seen = createdPets(hook);
      return petIds.filter((id) => !seen.has(id)).length;
    });
    if (missing.every((count) => count === 0) || Date.now() > until) return missing;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function createPets(child: ChildServer, count: number, onCreated?: (n: number) => void) {
  const created: number[] = [];
  await runBounded(count, 10, async (index) => {
    try {
      const response = await call(child, 'POST', '/v1/pets', {
        name: `hook ${index}`,
        categoryId: 1,
      });
      if (response.status === 201) created.push((response.body as { id: number }).id);
    } catch {
      // The connection died with the server: not acknowledged.
    }
    onCreated?.(created.length);
  });
  return created;
}

describe('webhooks through a kill -9', () => {
  it('delivers every acknowledged change to every endpoint after a restart', async () => {
    const database = await childDatabase();
    const hooks = await receivers();
    const first = await server(database);
    for (const hook of hooks) {
      expect((await call(first, 'POST', '/v1/webhooks', { url: hook.url })).status).toBe(201);
    }
    let killing: Promise<void> | undefined;
    const acknowledged = await createPets(first, 400, (n) => {
      if (n >= 150) killing ??= first.kill();
    });
    await killing;
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);

    const second = await server(database);
    const more = await createPets(second, 50);
    expect(await everyoneHas(hooks, [...acknowledged, ...more], 40_000)).toEqual([0, 0, 0]);
  }, 90_000);
});

describeOnPostgres('webhooks from two instances of two workers', () => {
  it('delivers each event once per endpoint when nothing crashes', async () => {
    const database = await childDatabase();
    const hooks = await receivers();
    // The default timeout: a second is a duration a loaded machine misses (four processes start
    // and create at once), and an attempt timed out is sent again, as the contract allows.
    const settings = { WORKERS: '2', WEBHOOK_TIMEOUT: `${String(DEFAULT_TIMEOUT_SECONDS)}s` };
    const [a, b] = await Promise.all([server(database, settings), server(database, settings)]);
    for (const hook of hooks) {
      expect((await call(a, 'POST', '/v1/webhooks', { url: hook.url })).status).toBe(201);
    }
    const created = [...(await createPets(a, 100)), ...(await createPets(b, 100))];
    expect(await everyoneHas(hooks, created, 30_000)).toEqual([0, 0, 0]);
    for (const hook of hooks) {
      const ids = hook.received.map((r) => r.headers['webhook-id']);
      expect(new Set(ids).size).toBe(ids.length);
    }
  }, 90_000);
});
