import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChildDatabase, type ChildDatabase } from '../helpers/child-database.js';
import { settledRssMiB, spawnServer, type ChildServer } from '../helpers/child-server.js';
import { percentile } from '../helpers/load.js';
import { TEST_KEY } from '../helpers/server.js';
import { timedRequest } from '../helpers/timed-request.js';

/** Fifty times the PostgreSQL pool (10), all at once. */
const CLIENTS = 500;
const REQUESTS_EACH = 2;
/**
 * Growth of resident memory over the warmed, settled server (settledRssMiB says why neither the
 * start nor the first burst of work can be the baseline). Generous; a per-connection leak would
 * blow past it.
 */
const MAX_GROWTH_MIB = 256;
const SAMPLE_EVERY_MS = 50;
const WARM_UP_CLIENTS = 100;

let database: ChildDatabase;
let server: ChildServer;

beforeAll(async () => {
  database = await createChildDatabase();
  // One key sending 1,000 requests would meet the rate limit, which is not what is measured here.
  server = await spawnServer({ ...database.env, API_KEYS: TEST_KEY, RATE_LIMIT: 'off' });
}, 90_000);
afterAll(async () => {
  await server.kill();
  await database.destroy();
});

function call(path: string, options: { method?: string; body?: unknown } = {}) {
  return timedRequest(server.origin, path, { ...options, key: TEST_KEY, timeoutMs: 60_000 });
}

/** `clients` concurrent clients, each creating a pet and listing 20, one after the other. */
async function storm(clients: number) {
  const outcomes = await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      const results = [];
      for (let i = 0; i < REQUESTS_EACH; i++) {
        results.push(
          (client + i) % 2
            ? await call('/v1/pets?limit=20')
            : await call('/v1/pets', {
                method: 'POST',
                body: { name: `overload ${clients}.${client}.${i}`, categoryId: 1 },
              }),
        );
      }
      return results;
    }),
  );
  return outcomes.flat();
}

describe(`overload: ${CLIENTS} concurrent clients`, () => {
  it('degrades latency, answers nothing but successes or 503/429, stays bounded in memory and healthy', async ({
    annotate,
  }) => {
    await storm(WARM_UP_CLIENTS);
    const baselineMiB = await settledRssMiB(server);
    const idle = await call('/v1/pets?limit=5');
    expect(idle.status).toBe(200);
    let peakMiB = baselineMiB;
    const sampler = setInterval(() => {
      peakMiB = Math.max(peakMiB, server.rssMiB());
    }, SAMPLE_EVERY_MS);

    const outcomes = await storm(CLIENTS);
    clearInterval(sampler);

    const unexpected = outcomes.filter((o) => ![200, 201, 429, 503].includes(o.status));
    expect(unexpected).toEqual([]);
    for (const o of outcomes.filter((o) => o.status >= 400)) {
      expect((JSON.parse(o.body) as { status?: number }).status).toBe(o.status);
    }
    const served = outcomes.filter((o) => o.status < 300).length;
    expect(served).toBeGreaterThan(0);
    expect(peakMiB - baselineMiB).toBeLessThan(MAX_GROWTH_MIB);

    expect((await call('/healthz')).status).toBe(200);
    expect((await call('/readyz')).status).toBe(200);
    const after = await call('/v1/pets', {
      method: 'POST',
      body: { name: 'after the storm', categoryId: 1 },
    });
    expect(after.status).toBe(201);
    const ms = outcomes.map((o) => o.ms);
    await annotate(
      `${outcomes.length} requests: ${served} served, ${outcomes.length - served} refused (503/429); ` +
        `latency p50 ${Math.round(percentile(ms, 50))} ms, p99 ${Math.round(percentile(ms, 99))} ms, ` +
        `idle ${Math.round(idle.ms)} ms; peak RSS ${peakMiB} MiB (${baselineMiB} MiB idle)`,
    );
  }, 120_000);
});
