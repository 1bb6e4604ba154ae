import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { testDatabaseTarget } from '../helpers/database.js';
import { newPet } from '../helpers/factories.js';
import { startTwoInstances, type Instances } from '../helpers/small-pool.js';
import { timedRequest, type TimedAnswer } from '../helpers/timed-request.js';

/**
 * One pet locked by another connection while ten PATCHes for it arrive: each is answered 503
 * at its deadline, and its statement must not outlive that answer. In the `pgbouncer` project
 * the service reaches PostgreSQL through five server connections only, shared by both
 * instances: a statement waiting on the lock holds one of them, so waiting there until the
 * deadline, let alone after it, starves every other request.
 */
const target = testDatabaseTarget();
const KEY = 'locked-row-key-0123456789abcdef';
const PATCHES = 10;
const CONTRACT_MS = 5_000;
/** How long after its 503 a request may still have a statement on the server. */
const SETTLE_MS = 100;
const FREE_WITHIN_MS = 1_000;

let instances: Instances;
let direct: postgres.Sql;

const call = (index: number, path: string, options: { method?: string; body?: unknown } = {}) =>
  timedRequest(instances.origins[index % 2] ?? '', path, {
    ...options,
    key: KEY,
    timeoutMs: 15_000,
  });

/**
 * What is left of the PATCHes on the server: a statement still waiting on the locker, or a
 * transaction begun before the PATCHes' deadline and left open. An unrelated create waiting a
 * moment on another create's advisory lock is neither.
 */
const busyStatements = (lockerPid: number) => direct<{ state: string; query: string }[]>`
  select state, query from pg_stat_activity
  where datname = current_database() and pid not in (pg_backend_pid(), ${lockerPid})
    and (${lockerPid} = any(pg_blocking_pids(pid))
      or (state like 'idle in transaction%' and xact_start < now() - interval '3 seconds'))`;

/** Requests that do not touch the locked pet, one after another on each instance until `done`. */
async function unrelatedUntil(done: { value: boolean }): Promise<TimedAnswer[]> {
  const answers: TimedAnswer[] = [];
  await Promise.all(
    [0, 1].map(async (instance) => {
      for (let round = 0; !done.value; round++) {
        const kind = round % 3;
        answers.push(
          await (kind === 0
            ? call(instance, '/v1/pets?limit=20')
            : kind === 1
              ? call(instance, '/v1/pets', { method: 'POST', body: newPet() })
              : call(instance, '/v1/store/inventory')),
        );
      }
    }),
  );
  return answers;
}

describe.runIf(target.kind === 'postgres')('a locked row (PostgreSQL projects)', () => {
  beforeAll(async () => {
    if (target.kind !== 'postgres') return;
    instances = await startTwoInstances(target, { API_KEYS: KEY, RATE_LIMIT: 'off' });
    direct = postgres(instances.directUrl, { max: 2, onnotice: () => undefined });
  }, 120_000);
  afterAll(async () => {
    await direct.end();
    await instances.stop();
  });

  it('answers its PATCHes 503 in time, cancels their statements, and serves everything else', async ({
    annotate,
  }) => {
    const { body: pet } = await call(0, '/v1/pets', { method: 'POST', body: newPet() });
    const { id } = JSON.parse(pet) as Pet;
    const locker = await direct.reserve();
    await locker`begin`;
    await locker`select id from pets where id = ${id} for update`;
    const [{ pid: lockerPid } = { pid: 0 }] = await locker<
      { pid: number }[]
    >`select pg_backend_pid() as pid`;

    const done = { value: false };
    const unrelated = unrelatedUntil(done);
    const patches = await Promise.all(
      Array.from({ length: PATCHES }, (_, index) =>
        call(index, `/v1/pets/${id}`, { method: 'PATCH', body: { name: `patch ${index}` } }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const leftOver = await busyStatements(lockerPid);
    done.value = true;
    const others = await unrelated;

    await locker`commit`;
    locker.release();
    const afterRelease = await Promise.all(
      [0, 1].map((index) =>
        call(index, `/v1/pets/${id}`, { method: 'PATCH', body: { name: 'free again' } }),
      ),
    );

    expect(patches.map((answer) => answer.status)).toEqual(patches.map(() => 503));
    expect(Math.max(...patches.map((answer) => answer.ms))).toBeLessThan(CONTRACT_MS);
    expect(leftOver).toEqual([]);
    expect(others.filter((answer) => answer.status >= 300)).toEqual([]);
    expect(others.length).toBeGreaterThan(PATCHES);
    expect(afterRelease.map((answer) => answer.status)).toEqual([200, 200]);
    expect(Math.max(...afterRelease.map((answer) => answer.ms))).toBeLessThan(FREE_WITHIN_MS);
    await annotate(
      `PATCHes 503 in ${Math.round(Math.min(...patches.map((a) => a.ms)))}-${Math.round(Math.max(...patches.map((a) => a.ms)))} ms; ` +
        `${others.length} unrelated requests all 2xx, slowest ${Math.round(Math.max(...others.map((a) => a.ms)))} ms; ` +
        `after the release ${Math.round(Math.max(...afterRelease.map((a) => a.ms)))} ms`,
    );
  }, 60_000);
});
