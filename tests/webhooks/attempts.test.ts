import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { statementOf, transaction, type Runner } from '../../db/runner.js';
import { claimDeliveries, settledEvents } from '../../server/webhooks/storage/claim.js';
import {
  recordAttempts,
  type AttemptOutcome,
  type FinishedAttempt,
} from '../../server/webhooks/storage/attempts.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const run = (query: SQL) => executeRows(database.handle.db, query);

/** `count` deliveries of the endpoint `id` in their first attempt, oldest first. */
async function attemptsOf(id: string, count: number): Promise<{ id: number; attempts: number }[]> {
  await run(sql`insert into webhook_endpoints (id, url, secret, fanned_out_through)
    values (${id}, 'https://hooks.example/' || ${id}, 'whsec_test', 0)`);
  const rows = await run(sql`with made as (
      insert into events (type, data)
      select 'pet.created', jsonb_build_object('id', n) from generate_series(1, ${count}) n
      returning id)
    insert into webhook_deliveries (endpoint_id, event_id, attempts, lease_until)
    select ${id}, id, 1, now() + interval '1 minute' from made order by id
    returning id`);
  return rows.map((row) => ({ id: Number(row.id), attempts: 1 }));
}

/** One attempt's outcome, recorded alone. */
const recordAttempt = async (
  on: Parameters<typeof recordAttempts>[0],
  delivery: FinishedAttempt['delivery'],
  outcome: AttemptOutcome,
) => {
  const [answer] = await recordAttempts(on, [{ delivery, outcome }]);
  if (!answer) throw new Error('no answer');
  return answer;
};

const succeeded = { status: 'succeeded', responseStatus: 200, error: null } as const;
const failed = { status: 'pending', retryInSeconds: 5, responseStatus: 500, error: null } as const;

/** The row's version (xmin changes with every write) and its failing_since. */
const endpointRow = async (id: string) =>
  (
    await run(sql`select xmin::text as version, failing_since from webhook_endpoints
      where id = ${id}`)
  )[0];

describe('recording attempts', () => {
  it("rewrites an endpoint's row only when it starts or stops failing", async () => {
    const [a, b, c, d] = await attemptsOf('endpoint', 4);
    if (!a || !b || !c || !d) throw new Error('no deliveries');
    const healthy = await endpointRow('endpoint');
    expect(await recordAttempt(database.handle.db, a, succeeded)).toEqual({
      recorded: true,
      failingSince: null,
    });
    expect(await endpointRow('endpoint')).toEqual(healthy);

    const first = await recordAttempt(database.handle.db, b, failed);
    expect(first.failingSince).toBeInstanceOf(Date);
    const failing = await endpointRow('endpoint');
    expect(failing?.version).not.toBe(healthy?.version);
    expect(await recordAttempt(database.handle.db, c, failed)).toEqual(first);
    expect(await endpointRow('endpoint')).toEqual(failing);

    await recordAttempt(database.handle.db, d, succeeded);
    expect((await endpointRow('endpoint'))?.failing_since).toBeNull();
  });

  it('records a batch in one statement, an answer each, the last outcome deciding', async () => {
    const [a, b, c] = await attemptsOf('batch-one', 3);
    const [d] = await attemptsOf('batch-two', 1);
    if (!a || !b || !c || !d) throw new Error('no deliveries');
    const answers = await recordAttempts(database.handle.db, [
      { delivery: a, outcome: failed },
      { delivery: { ...b, attempts: 2 }, outcome: succeeded },
      { delivery: d, outcome: failed },
      { delivery: c, outcome: succeeded },
    ]);
    expect(answers.map(({ recorded }) => recorded)).toEqual([true, false, true, true]);
    // The first endpoint's last outcome was a success: it is not failing.
    expect(answers[0]?.failingSince).toBeNull();
    expect((await endpointRow('batch-one'))?.failing_since).toBeNull();
    expect(answers[2]?.failingSince).toBeInstanceOf(Date);
    expect((await endpointRow('batch-two'))?.failing_since).not.toBeNull();
    const statuses = await run(sql`select id, status::text, last_error from webhook_deliveries
      where endpoint_id in ('batch-one', 'batch-two') order by id`);
    expect(statuses.map(({ status }) => status)).toEqual([
      'pending',
      'pending',
      'succeeded',
      'pending',
    ]);
  });

  it('records nothing for an attempt whose lease was lost', async () => {
    const [lost] = await attemptsOf('taken-over', 1);
    if (!lost) throw new Error('no delivery');
    const answer = await recordAttempt(database.handle.db, { ...lost, attempts: 2 }, succeeded);
    expect(answer).toEqual({ recorded: false, failingSince: null });
  });

  it('commits claims and outcomes without waiting for the disk', async () => {
    const [delivery] = await attemptsOf('unflushed', 1);
    if (!delivery) throw new Error('no delivery');
    const settled = await settledEvents(database.handle.db);
    const commitSetting = statementOf(sql`select current_setting('synchronous_commit')`);
    // What the transaction of each statement commits with, read before it ends.
    const settingAfter = (work: (tx: Runner) => Promise<unknown>) =>
      transaction(database.handle.db, async (tx) => {
        await work(tx);
        return (await tx.rows(commitSetting))[0]?.[0];
      });
    expect(await settingAfter((tx) => recordAttempt(tx, delivery, succeeded))).toBe('off');
    expect(
      await settingAfter((tx) => claimDeliveries(tx, { limit: 10, leaseSeconds: 8, settled })),
    ).toBe('off');
  });
});
