import { sql } from 'drizzle-orm';
import type { Database } from '../database.js';
import { runnerFor, runnerOf, statementOf, type Queryable } from '../runner.js';

const issueStatement = statementOf(sql`
  insert into stream_tickets (hash, key_id, expires_at)
  values (${sql.placeholder('hash')}::text, ${sql.placeholder('keyId')}::text,
    now() + make_interval(secs => ${sql.placeholder('ttlSeconds')}::int))
  returning expires_at`);

/** Stores a ticket's hash for `keyId`; returns when it expires, by the database's clock. */
export async function insertStreamTicket(
  db: Database,
  ticket: { hash: string; keyId: string; ttlSeconds: number },
): Promise<Date> {
  const [row] = await runnerOf(db).rows(issueStatement, { ...ticket });
  return new Date(row?.[0] as string | Date);
}

// One statement spends the ticket and says whose it was: of two requests presenting it at
// once, exactly one deletes the row, and the other finds none. An expired ticket stays for
// the purge, and opens nothing meanwhile.
const redeemStatement = statementOf(sql`
  delete from stream_tickets
  where hash = ${sql.placeholder('hash')}::text and expires_at > now()
  returning key_id`);

/** The key id of an unexpired ticket, which is gone from now on; otherwise undefined. */
export async function redeemStreamTicket(on: Queryable, hash: string): Promise<string | undefined> {
  const [row] = await runnerFor(on).rows(redeemStatement, { hash });
  return row === undefined ? undefined : (row[0] as string);
}

// As the other purges (db/queries/events.ts): `= any(array(...))` looks the hashes up in the
// primary key where `in (...)` may hash them against a scan of the table, and the order lets
// the batch come from the expiry index.
const purgeStatement = statementOf(sql`
  delete from stream_tickets where hash = any(array(
    select hash from stream_tickets where expires_at < now()
    order by expires_at limit ${sql.placeholder('batchSize')}::int for update skip locked))
  returning 1`);

/** Deletes at most `batchSize` expired tickets (never redeemed); returns how many went. */
export async function deleteExpiredStreamTickets(db: Database, batchSize: number): Promise<number> {
  return (await runnerOf(db).rows(purgeStatement, { batchSize })).length;
}
