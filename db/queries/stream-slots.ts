import { sql } from 'drizzle-orm';
import type { Database } from '../database.js';
import { runnerOf, statementOf, transaction } from '../runner.js';

/** A class of its own in the two-key advisory lock space, for the acquires of one API key. */
const SLOT_LOCK_CLASS = 7_246;

const lockKey = statementOf(
  sql`select pg_advisory_xact_lock(${SLOT_LOCK_CLASS}, hashtext(${sql.placeholder('keyId')}::text))`,
);

/**
 * The lowest slot below the limit that no live lease holds; an expired lease (its holder died)
 * is taken over in place.
 */
const takeStatement = statementOf(sql`
  insert into stream_slots (key_id, slot, holder, expires_at)
  select ${sql.placeholder('keyId')}::text, s, ${sql.placeholder('holder')}::text,
    now() + make_interval(secs => ${sql.placeholder('ttlSeconds')}::int)
  from generate_series(0, ${sql.placeholder('limit')}::int - 1) as s
  where not exists (
    select 1 from stream_slots t
    where t.key_id = ${sql.placeholder('keyId')}::text and t.slot = s and t.expires_at > now())
  order by s limit 1
  on conflict (key_id, slot) do update
    set holder = excluded.holder, expires_at = excluded.expires_at
  returning slot`);

export interface SlotRequest {
  keyId: string;
  limit: number;
  holder: string;
  ttlSeconds: number;
}

/** Takes a free slot of `keyId` for `holder`: its number, or undefined when all are held. */
export function takeStreamSlot(db: Database, request: SlotRequest): Promise<number | undefined> {
  // The key's lock makes acquires of one key take turns: two never pick the same free slot.
  return transaction(db, async (tx) => {
    await tx.rows(lockKey, { keyId: request.keyId });
    const [row] = await tx.rows(takeStatement, { ...request });
    return row === undefined ? undefined : Number(row[0]);
  });
}

const releaseStatement = statementOf(sql`
  delete from stream_slots where key_id = ${sql.placeholder('keyId')}::text
    and slot = ${sql.placeholder('slot')}::int and holder = ${sql.placeholder('holder')}::text`);

export async function releaseStreamSlot(
  db: Database,
  slot: { keyId: string; slot: number; holder: string },
): Promise<void> {
  await runnerOf(db).rows(releaseStatement, { ...slot });
}

const renewStatement = statementOf(sql`
  update stream_slots set expires_at = now() + make_interval(secs => ${sql.placeholder('ttlSeconds')}::int)
  where holder = ${sql.placeholder('holder')}::text`);

/** Keeps every lease of `holder` alive for another `ttlSeconds`. */
export async function renewStreamSlots(
  db: Database,
  holder: string,
  ttlSeconds: number,
): Promise<void> {
  await runnerOf(db).rows(renewStatement, { holder, ttlSeconds });
}

const releaseAllStatement = statementOf(
  sql`delete from stream_slots where holder = ${sql.placeholder('holder')}::text`,
);

/** Gives back every slot `holder` holds (a process shutting down). */
export async function releaseAllStreamSlots(db: Database, holder: string): Promise<void> {
  await runnerOf(db).rows(releaseAllStatement, { holder });
}
