import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTarget } from '../helpers/database.js';
import { newPet } from '../helpers/factories.js';
import { percentile } from '../helpers/load.js';
import { POOLER_POOL_SIZE, startTwoInstances, type Instances } from '../helpers/small-pool.js';
import { timedRequest, type TimedAnswer } from '../helpers/timed-request.js';

/**
 * The field's burst: 500 clients at once, two requests each (a create, a list of 20, the
 * inventory, in turn), spread over two instances that share a PgBouncer in transaction mode
 * with five server connections. Its work takes the same instances well under a second directly
 * on PostgreSQL, so five connections can serve it: nearly every answer is a success and none
 * comes later than the contract's 5 s.
 */
const target = testDatabaseTarget();
const pooled = target.kind === 'postgres' && target.poolerUrl !== undefined;
const KEY = 'pooler-burst-key-0123456789abcdef';
const CLIENTS = 500;
const REQUESTS_EACH = 2;
const CONTRACT_MS = 5_000;
const MIN_SUCCESS_SHARE = 0.95;

let instances: Instances;

function request(origin: string, kind: number): Promise<TimedAnswer> {
  const options = { key: KEY, timeoutMs: 30_000 };
  if (kind === 0)
    return timedRequest(origin, '/v1/pets', { ...options, method: 'POST', body: newPet() });
  if (kind === 1) return timedRequest(origin, '/v1/pets?limit=20', options);
  return timedRequest(origin, '/v1/store/inventory', options);
}

async function burst(origins: readonly string[]): Promise<TimedAnswer[]> {
  const perClient = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const origin = origins[client % origins.length] ?? '';
      const answers: TimedAnswer[] = [];
      for (let i = 0; i < REQUESTS_EACH; i++) {
        answers.push(await request(origin, (client * REQUESTS_EACH + i) % 3));
      }
      return answers;
    }),
  );
  return perClient.flat();
}

function summary(answers: readonly TimedAnswer[]): string {
  const ms = answers.map((answer) => answer.ms);
  const ok = answers.filter((answer) => answer.status >= 200 && answer.status < 300).length;
  return (
    `${ok}/${answers.length} 2xx, p50 ${Math.round(percentile(ms, 50))} ms, ` +
    `p99 ${Math.round(percentile(ms, 99))} ms, max ${Math.round(Math.max(...ms))} ms`
  );
}

describe.runIf(pooled)(
  `a burst through a pool of ${POOLER_POOL_SIZE} (pgbouncer project only)`,
  () => {
    beforeAll(async () => {
      if (target.kind !== 'postgres') return;
      instances = await startTwoInstances(target, { API_KEYS: KEY, RATE_LIMIT: 'off' });
    }, 120_000);
    afterAll(async () => {
      await instances.stop();
    });

    it(`serves ${CLIENTS} clients x ${REQUESTS_EACH} requests, none later than 5 s`, async ({
      annotate,
    }) => {
      const viaPooler = await burst(instances.origins);
      const directly = await instances.startDirect();
      const direct = await burst(directly.origins).finally(() => directly.stop());
      await annotate(`through PgBouncer: ${summary(viaPooler)}; directly: ${summary(direct)}`);

      const ok = viaPooler.filter((answer) => answer.status >= 200 && answer.status < 300);
      expect(ok.length / viaPooler.length).toBeGreaterThanOrEqual(MIN_SUCCESS_SHARE);
      expect(viaPooler.filter((answer) => answer.ms > CONTRACT_MS)).toEqual([]);
      expect(viaPooler.filter((answer) => ![200, 201, 503].includes(answer.status))).toEqual([]);
    }, 180_000);
  },
);
