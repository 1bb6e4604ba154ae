import postgres from 'postgres';
import { postgresRunners, transaction, type Runner, type Transactor } from '../../db/runner.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendEvents,
  eventsAfter,
  lastEventId,
  prunedThrough,
  pruneEvents,
  type EventRow,
} from '../../db/queries/events.js';
import { insertPets } from '../../db/queries/pets.js';
import * as schema from '../../db/schema.js';
import { pruneExpiredEvents } from '../../server/domain/events/retention.js';
import { createTestDatabase, type TestDatabase, describeOnPostgres } from '../helpers/database.js';

let database: TestDatabase;
const db = () => database.handle.db;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const named = (events: readonly EventRow[]) =>
  events.map((event) => (event.data as { name?: string; id: number }).name ?? event.data);

const change = (name: string) => ({ type: 'pet.updated' as const, data: { id: 1, name } });

/** Events stamped `ageSeconds` ago, as if written then; returns their ids. */
async function oldEvents(count: number, ageSeconds: number): Promise<number[]> {
  const rows = await db()
    .insert(schema.events)
    .values(
      Array.from({ length: count }, (_, i) => ({
        type: 'pet.deleted' as const,
        data: { id: i + 1 },
        occurredAt: new Date(Date.now() - ageSeconds * 1000),
      })),
    )
    .returning({ id: schema.events.id });
  return rows.map((row) => row.id).sort((a, b) => a - b);
}

describe('appendEvents', () => {
  it('appends events that eventsAfter reads back in id order, a page at a time', async () => {
    const start = await lastEventId(db());
    await appendEvents(db(), [change('one'), change('two')]);
    await appendEvents(db(), [change('three')]);
    const all = await eventsAfter(db(), start, 10);
    expect(named(all)).toEqual(['one', 'two', 'three']);
    expect(all.map((event) => event.id)).toEqual([...all.map((event) => event.id)].sort());
    const [first, second] = all;
    expect(named(await eventsAfter(db(), start, 2))).toEqual(['one', 'two']);
    expect(named(await eventsAfter(db(), second?.id ?? 0, 2))).toEqual(['three']);
    expect(await lastEventId(db())).toBe(all.at(-1)?.id);
    expect(first?.occurredAt).toBeInstanceOf(Date);
  });

  it('leaves no event when its transaction rolls back', async () => {
    const start = await lastEventId(db());
    const rolledBack = transaction(db(), async (tx) => {
      await appendEvents(tx, [change('never')]);
      await insertPets(tx, [{ name: 'Never created', categoryId: 1, status: 'available' }]);
      throw new Error('rolled back on purpose');
    });
    await expect(rolledBack).rejects.toThrow('rolled back on purpose');
    expect(await eventsAfter(db(), start, 10)).toEqual([]);
    await appendEvents(db(), [change('after')]);
    expect(named(await eventsAfter(db(), start, 10))).toEqual(['after']);
  });

  it('appends a pet.created for each pet insertPets writes, in the same statement', async () => {
    const start = await lastEventId(db());
    const created = await insertPets(db(), [
      { name: 'Grouped A', categoryId: 1, status: 'available' },
      { name: 'Grouped B', categoryId: 2, status: 'sold' },
    ]);
    const appended = await eventsAfter(db(), start, 10);
    expect(appended.map((event) => [event.type, event.data])).toEqual(
      created.map(({ id, name, categoryId, status }) => [
        'pet.created',
        { id, name, categoryId, status },
      ]),
    );
  });
});

describe('pruneEvents', () => {
  it('deletes events past the retention oldest first, in batches, and records prunedThrough', async () => {
    const old = await oldEvents(5, 7_200);
    await appendEvents(db(), [change('recent')]);
    const recent = await lastEventId(db());
    expect(await prunedThrough(db())).toBe(0);

    expect(await pruneEvents(db(), 3_600, 2)).toBe(2);
    expect(await prunedThrough(db())).toBe(old[1]);
    const left = (await eventsAfter(db(), 0, 100)).map((event) => event.id);
    expect(left.filter((id) => old.includes(id))).toEqual(old.slice(2));

    expect((await pruneExpiredEvents(db(), 3_600)).deleted).toBe(3);
    expect(await prunedThrough(db())).toBe(old[4]);
    expect(await pruneEvents(db(), 3_600, 2)).toBe(0);
    expect(await prunedThrough(db()), 'never moves back').toBe(old[4]);
    const kept = (await eventsAfter(db(), 0, 100)).map((event) => event.id);
    expect(kept.filter((id) => old.includes(id))).toEqual([]);
    expect(kept).toContain(recent);
  });
});

/** A promise that resolves when `open` is called. */
function gate(): { promise: Promise<undefined>; open: () => void } {
  let open = () => undefined as unknown;
  const promise = new Promise<undefined>((resolve) => {
    open = () => {
      resolve(undefined);
    };
  });
  return { promise, open };
}

/** A second and third connection of their own: PGlite has only one, so PostgreSQL only. */
describeOnPostgres('two writers on two connections (PostgreSQL)', () => {
  const clients: postgres.Sql[] = [];
  const connection = (): Transactor => {
    const { options } = database;
    if (options.kind !== 'postgres') throw new Error('PostgreSQL only');
    const client = postgres(options.url, { max: 1, onnotice: () => undefined });
    clients.push(client);
    return postgresRunners({ pool: client, reads: client }, { prepared: true })(undefined);
  };
  afterAll(() => Promise.all(clients.map((client) => client.end())));

  const writers: Record<string, (tx: Runner, name: string) => Promise<unknown>> = {
    appendEvents: (tx, name) => appendEvents(tx, [change(name)]),
    insertPets: (tx, name) => insertPets(tx, [{ name, categoryId: 3, status: 'available' }]),
  };
  const pairs = [
    ['appendEvents', 'appendEvents'],
    ['insertPets', 'appendEvents'],
    ['appendEvents', 'insertPets'],
  ] as const;

  it('reads the last id only once an open writer has committed, and counts its event', async () => {
    const writer = connection();
    const start = await lastEventId(db());
    const release = gate();
    const held = gate();
    const tx = writer.transaction(async (runner) => {
      await appendEvents(runner, [change('Open')]);
      held.open();
      await release.promise;
    });
    await held.promise;
    let settled: number | undefined;
    const reading = lastEventId(db()).then((id) => (settled = id));
    // It waits on the writer's lock: nothing ends that wait but the writer.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBeUndefined();
    release.open();
    await tx;
    // Read with a snapshot taken after the wait: the writer's event is below it.
    expect(await reading).toBeGreaterThan(start);
  });

  for (const [first, second] of pairs) {
    it(`never shows a later id before an earlier one commits (${first}, then ${second}): a reader resuming in between gets both`, async () => {
      const [a, b] = [connection(), connection()];
      const start = await lastEventId(db());
      const releaseA = gate();
      const heldA = gate();
      const txA = a.transaction(async (tx) => {
        await writers[first]?.(tx, 'A');
        heldA.open();
        await releaseA.promise;
      });
      await heldA.promise;
      // B draws its id after A did, and commits as soon as it is let: possibly before A.
      const txB = b.transaction(async (tx) => {
        await writers[second]?.(tx, 'B');
      });
      let seenBetween: EventRow[] = [];
      try {
        // Bounded on purpose: B may commit at once, or wait for A, which never ends on its own.
        await Promise.race([txB, new Promise((resolve) => setTimeout(resolve, 300))]);
        // A reader that starts while A is still open: it may wait for A, or see neither. Both
        // are correct, so nothing marks the moment to go on; it gets 300 ms either way.
        const reading = eventsAfter(db(), start, 10);
        await new Promise((resolve) => setTimeout(resolve, 300));
        releaseA.open();
        [seenBetween] = await Promise.all([reading, txA, txB]);
      } finally {
        releaseA.open();
        await Promise.allSettled([txA, txB]);
      }

      // It resumes after the last id it saw, and misses nothing.
      const resumeAfter = seenBetween.at(-1)?.id ?? start;
      const resumed = await eventsAfter(db(), resumeAfter, 10);
      expect(named([...seenBetween, ...resumed])).toEqual(['A', 'B']);
      const [eventA, eventB] = await eventsAfter(db(), start, 10);
      expect(eventB?.id).toBeGreaterThan(eventA?.id ?? Infinity);
      expect(named(await eventsAfter(db(), eventA?.id ?? 0, 10))).toEqual(['B']);
    });
  }
});
