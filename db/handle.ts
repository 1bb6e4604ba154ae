import type { Writable } from 'node:stream';
import type { Database } from './database.js';
import type { ReadReplicas } from './replicas/read-replicas.js';

/** An open database, PostgreSQL or embedded: what the service asks of either. */
export interface DatabaseHandle {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Database;
  /** PostgreSQL with DATABASE_REPLICA_URLS only: where reads may go instead of `db`. */
  readonly replicas?: ReadReplicas;
  /** Applies the committed migrations in drizzle/. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /**
   * Calls `onNotify` for every NOTIFY on `channel`, and `onListening` each time the listener is
   * (re)connected, when notifications sent meanwhile may have been missed. On PostgreSQL this is
   * one connection of its own per process, to the direct URL when there is one; without it the
   * URL may be a pooler, where LISTEN reaches no one, so until the server proves it sees our
   * connections directly `onListening` is also called every LISTEN_FALLBACK_MS. On PGlite, in
   * process.
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onListening: () => void,
  ): Promise<{ unlisten(): Promise<void> }>;
  /** PGlite only: a consistent copy of the data folder, as a gzipped tar (db/embedded/backup.ts). */
  readonly dump?: () => Promise<Blob>;
  /** PGlite only: the same copy, streamed to `out` (npm run db:backup). */
  readonly backup?: (out: Writable, signal?: AbortSignal) => Promise<void>;
  /** Connections the process may hold: DATABASE_POOL_MAX on PostgreSQL, 1 on PGlite. */
  readonly poolSize: number;
  close(): Promise<void>;
}
