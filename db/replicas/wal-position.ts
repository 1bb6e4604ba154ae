import type { Sql } from 'postgres';

/**
 * WAL positions are read as byte offsets (`pg_lsn - '0/0'`, a numeric) and kept as bigints:
 * they compare as numbers, and the service never needs PostgreSQL's `X/Y` text.
 */
const OFFSET = (lsn: string) => `(${lsn} - '0/0'::pg_lsn)::text`;

/**
 * The primary's flushed position: past the commit of every transaction visible now, as a
 * commit waits for its flush, and no further than what standbys can receive (a position past
 * the flush would wait for the WAL writer, up to 200 ms). Where commits do not wait
 * (synchronous_commit off), the insert position, which passes them too.
 */
const PRIMARY_SQL = `select case current_setting('synchronous_commit') when 'off' then ${OFFSET(
  'pg_current_wal_insert_lsn()',
)} else ${OFFSET('pg_current_wal_flush_lsn()')} end`;

/**
 * A standby's state. `replayed` is what a snapshot taken after this reading sees at least.
 * `received` (WAL flushed by the receiver, which replay never passes while streaming) bounds
 * what a snapshot taken before the reading could see; replay bounds it too, for WAL found on
 * disk at start. The start time names the server's life: a restarted standby may answer from
 * an earlier point than it had replayed before.
 */
const STANDBY_SQL = `select ${OFFSET('pg_last_wal_replay_lsn()')}, ${OFFSET(
  'greatest(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn())',
)}, pg_postmaster_start_time()::text, pg_is_in_recovery()`;

export interface StandbyReading {
  replayed: bigint;
  /** At least the position of anything a read that ended before the reading saw. */
  upperBound: bigint;
  /** Which life of the server answered (its postmaster's start time). */
  instance: string;
}

/** A server that answers but is no hot standby: promoted, or never one. */
export class NotAStandbyError extends Error {
  override name = 'NotAStandbyError';
}

// A constant statement: unnamed, so it runs as well through a pooler in transaction mode.
const UNNAMED = { prepare: false } as const;

export async function readPrimaryPosition(client: Sql): Promise<bigint> {
  const [row] = (await client.unsafe(PRIMARY_SQL, [], UNNAMED).values()) as unknown as [string][];
  if (!row) throw new Error('The primary answered no WAL position');
  return BigInt(row[0]);
}

export async function readStandby(client: Sql): Promise<StandbyReading> {
  const [row] = (await client.unsafe(STANDBY_SQL, [], UNNAMED).values()) as unknown as [
    string | null,
    string | null,
    string,
    boolean,
  ][];
  const [replayed, upperBound, instance, inRecovery] = row ?? [];
  if (!inRecovery || replayed == null || upperBound == null || instance === undefined) {
    throw new NotAStandbyError('The server is not a hot standby in recovery');
  }
  return { replayed: BigInt(replayed), upperBound: BigInt(upperBound), instance };
}
