import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { takeStreamSlots } from '../../db/queries/stream-slots.js';
import { StreamSlots } from '../../server/domain/events/stream-slots.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * The per-key stream limit, counted in the database: each StreamSlots stands for one process
 * (a holder of its own), as two processes or instances on one database are.
 */
let database: TestDatabase;
const errors: unknown[] = [];
const processSlots = (limit: number) =>
  new StreamSlots(database.handle.db, limit, (error) => {
    errors.push(error);
  });

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  expect(errors).toEqual([]);
  await database.destroy();
});

describe('StreamSlots', () => {
  it('counts one limit across processes and gives a released slot to the next', async () => {
    const [first, second] = [processSlots(2), processSlots(2)];
    const held = [await first.acquire('k1'), await second.acquire('k1')];
    expect(held.every(Boolean)).toBe(true);
    expect(await first.acquire('k1')).toBeUndefined();
    expect(await second.acquire('k1')).toBeUndefined();
    // Another key has slots of its own.
    expect(await first.acquire('k2')).toBeTypeOf('function');
    held[0]?.();
    expect(await first.acquire('k1')).toBeTypeOf('function');
    await Promise.all([first.close(), second.close()]);
  });

  it('gives exactly the limit to many acquires at once', async () => {
    const holders = Array.from({ length: 4 }, () => processSlots(5));
    const taken = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (holders[i % 4] as StreamSlots).acquire('k3')),
    );
    expect(taken.filter(Boolean)).toHaveLength(5);
    await Promise.all(holders.map((holder) => holder.close()));
  });

  it('gives back many slots at once, so the key’s whole limit can be taken again', async () => {
    const slots = processSlots(50);
    const acquireAll = () => Promise.all(Array.from({ length: 50 }, () => slots.acquire('k6')));
    const first = await acquireAll();
    expect(first.every(Boolean)).toBe(true);
    expect(await slots.acquire('k6')).toBeUndefined();
    for (const release of first) release?.();
    // An acquire waits for the releases under way: every slot is free again.
    expect((await acquireAll()).every(Boolean)).toBe(true);
    const held = await executeRows<{ n: number }>(
      database.handle.db,
      sql`select count(*)::int as n from stream_slots where key_id = 'k6'`,
    );
    expect(held).toEqual([{ n: 50 }]);
    await slots.close();
  });

  it('takes over the slots of a holder whose lease ran out (a process that died)', async () => {
    const { db } = database.handle;
    // A lease that expired a second ago, as a killed process leaves it.
    expect(
      await takeStreamSlots(db, {
        keyId: 'k4',
        limit: 1,
        count: 1,
        holder: 'dead',
        ttlSeconds: -1,
      }),
    ).toEqual([0]);
    const alive = processSlots(1);
    expect(await alive.acquire('k4')).toBeTypeOf('function');
    await alive.close();
  });

  it('gives back every slot of a process that closes', async () => {
    const slots = processSlots(3);
    await slots.acquire('k5');
    await slots.acquire('k5');
    await slots.close();
    const left = await executeRows<{ n: number }>(
      database.handle.db,
      sql`select count(*)::int as n from stream_slots where key_id = 'k5'`,
    );
    expect(left).toEqual([{ n: 0 }]);
  });
});
