import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/client.js';
import { executeRows } from '../../db/database.js';
import { events } from '../../db/schema.js';
import { pruneExpiredEvents } from '../../server/domain/events/retention.js';
import { purgeExpiredIdempotencyKeys } from '../../server/domain/idempotency/purge.js';
import { IDEMPOTENCY_TTL_SECONDS } from '../../server/domain/idempotency/replay.js';
import { vacuumAfterPurgeBatch } from '../../server/process/maintenance.js';
import {
  createTestDatabase,
  describeOnEmbedded,
  describeOnPostgres,
  type TestDatabase,
} from '../helpers/database.js';

const RETENTION_SECONDS = 3_600;

let database: TestDatabase;
/**
 * One connection on PostgreSQL, so the activity counters it reads are those of the statements
 * it ran (a backend publishes its own at once when asked, others' up to seconds later).
 */
let single: DatabaseHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  single =
    database.options.kind === 'postgres'
      ? await openDatabase({ ...database.options, poolMax: 1 })
      : database.handle;
});
afterAll(async () => {
  if (single !== database.handle) await single.close();
  await database.destroy();
});

/** Rows the table's scans have read so far, and how often `index` was scanned. */
async function reads(table: string, index: string) {
  await single.db.execute(sql`select pg_stat_force_next_flush()`);
  const [row] = await executeRows<{ rows: number | string; index_scans: number | string }>(
    single.db,
    sql`select coalesce(t.seq_tup_read, 0) + coalesce(t.idx_tup_fetch, 0) as rows,
          i.idx_scan as index_scans
        from pg_stat_user_tables t join pg_stat_user_indexes i on i.relid = t.relid
        where t.relname = ${table} and i.indexrelname = ${index}`,
  );
  return { rows: Number(row?.rows), indexScans: Number(row?.index_scans) };
}

async function addEvents(count: number, ageSeconds: number) {
  await single.db.execute(sql`
    insert into events (type, occurred_at, data)
    select 'pet.deleted', now() - make_interval(secs => ${ageSeconds}), jsonb_build_object('id', g)
    from generate_series(1, ${count}) g`);
}

async function addIdempotencyKeys(prefix: string, count: number, ageSeconds: number) {
  await single.db.execute(sql`
    insert into idempotency_keys (api_key_id, key, operation, request_hash, response, created_at)
    select 'purge-test', ${prefix} || g, 'createPet', 'hash', '{"body":null,"headers":{}}',
      now() - make_interval(secs => ${ageSeconds})
    from generate_series(1, ${count}) g`);
}

describe('the event retention purge', () => {
  it('reads no kept event when none has expired', async () => {
    await addEvents(3_000, 0);
    const before = await reads('events', 'events_occurred_at_idx');
    expect(await pruneExpiredEvents(single.db, RETENTION_SECONDS, 1_000)).toEqual({
      deleted: 0,
      batches: 1,
    });
    const after = await reads('events', 'events_occurred_at_idx');
    expect(after.indexScans).toBeGreaterThan(before.indexScans);
    expect(after.rows - before.rows).toBeLessThan(10);
  });

  it('deletes more than a batch in several batches, through the index on occurred_at', async () => {
    await addEvents(2_500, 2 * RETENTION_SECONDS);
    const before = await reads('events', 'events_occurred_at_idx');
    expect(await pruneExpiredEvents(single.db, RETENTION_SECONDS, 1_000)).toEqual({
      deleted: 2_500,
      batches: 3,
    });
    const after = await reads('events', 'events_occurred_at_idx');
    expect(after.indexScans - before.indexScans).toBeGreaterThanOrEqual(3);
    // The rows deleted, each read once to find it and once to delete it; not the 3,000 kept.
    expect(after.rows - before.rows).toBeLessThan(2 * 2_500 + 100);
  });
});

describe('the idempotency key purge', () => {
  it('reads no live key when none has expired', async () => {
    await addIdempotencyKeys('live-', 3_000, 0);
    const before = await reads('idempotency_keys', 'idempotency_keys_created_at_idx');
    expect(await purgeExpiredIdempotencyKeys(single.db, 1_000)).toEqual({
      deleted: 0,
      batches: 1,
    });
    const after = await reads('idempotency_keys', 'idempotency_keys_created_at_idx');
    expect(after.indexScans).toBeGreaterThan(before.indexScans);
    expect(after.rows - before.rows).toBeLessThan(10);
  });

  it('deletes more than a batch in several batches, through the index on created_at', async () => {
    await addIdempotencyKeys('expired-', 2_500, IDEMPOTENCY_TTL_SECONDS + 60);
    const before = await reads('idempotency_keys', 'idempotency_keys_created_at_idx');
    expect(await purgeExpiredIdempotencyKeys(single.db, 1_000)).toEqual({
      deleted: 2_500,
      batches: 3,
    });
    const after = await reads('idempotency_keys', 'idempotency_keys_created_at_idx');
    expect(after.indexScans - before.indexScans).toBeGreaterThanOrEqual(3);
    expect(after.rows - before.rows).toBeLessThan(2 * 2_500 + 100);
  });
});

describeOnEmbedded('a purge on the embedded database', () => {
  const expiredEvents = async () => {
    const [row] = await executeRows<{ count: number }>(
      single.db,
      sql`select count(*)::int as count from events
        where occurred_at < now() - make_interval(secs => ${RETENTION_SECONDS})`,
    );
    return row?.count;
  };

  it('lets work that arrived meanwhile run between two batches', async () => {
    await addEvents(3_000, 2 * RETENTION_SECONDS);
    const purge = pruneExpiredEvents(single.db, RETENTION_SECONDS, 1_000);
    // PGlite answers without I/O: this runs before the purge ends only if the purge yields.
    const seenMeanwhile = new Promise((resolve) => {
      setImmediate(() => {
        resolve(expiredEvents());
      });
    });
    expect((await purge).deleted).toBe(3_000);
    expect(await seenMeanwhile).toBe(2_000);
  });

  it('vacuums the table after each batch that deleted rows, so no dead row piles up', async () => {
    const activity = async () => {
      await single.db.execute(sql`select pg_stat_force_next_flush()`);
      const [row] = await executeRows<{ vacuums: number; dead: number }>(
        single.db,
        sql`select vacuum_count::int as vacuums, n_dead_tup::int as dead
          from pg_stat_user_tables where relname = 'events'`,
      );
      return { vacuums: Number(row?.vacuums), dead: Number(row?.dead) };
    };
    await addEvents(2_500, 2 * RETENTION_SECONDS);
    const before = await activity();
    const deadAfterEach: number[] = [];
    const vacuum = vacuumAfterPurgeBatch(single, events);
    const afterBatch = async () => {
      // The batch's deletes reach the counters first, or they land after the vacuum's report.
      await activity();
      await vacuum?.();
      deadAfterEach.push((await activity()).dead);
    };
    expect(await pruneExpiredEvents(single.db, RETENTION_SECONDS, 1_000, afterBatch)).toEqual({
      deleted: 2_500,
      batches: 3,
    });
    expect((await activity()).vacuums - before.vacuums).toBe(3);
    expect(deadAfterEach).toEqual([0, 0, 0]);
  });
});

describeOnPostgres('a purge on PostgreSQL', () => {
  it('leaves the vacuum to autovacuum', () => {
    expect(vacuumAfterPurgeBatch(single, events)).toBeUndefined();
  });
});
