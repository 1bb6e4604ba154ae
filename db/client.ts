import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { attachRunner, pgliteRunner, postgresRunner } from './runner.js';
import type { Database } from './database.js';
import { migratePglite, migratePostgres } from './migrate.js';
import { postgresSessionLocks, type SessionLocks } from './session-locks.js';
import * as schema from './schema.js';

export type { Database };

export type DatabaseOptions =
  { kind: 'postgres'; url: string; poolMax: number } | { kind: 'pglite'; dataDir: string };

export interface DatabaseHandle {
  readonly kind: DatabaseOptions['kind'];
  readonly db: Database;
  /** Applies the committed migrations in drizzle/. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /**
   * Calls `onNotify` for every NOTIFY on `channel`, and `onListening` each time the listener is
   * (re)connected, when notifications sent meanwhile may have been missed. On PostgreSQL this is
   * one connection of its own per process; on PGlite, in process.
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onListening: () => void,
  ): Promise<{ unlisten(): Promise<void> }>;
  /** Connections the process may hold: DATABASE_POOL_MAX on PostgreSQL, 1 on PGlite. */
  readonly poolSize: number;
  /** Slots counted across processes (PostgreSQL); undefined on PGlite, where one process runs. */
  readonly sessionLocks: SessionLocks | undefined;
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_SECONDS = 5;
const STATEMENT_TIMEOUT_MS = 5_000;
const MAX_RECONNECT_DELAY_SECONDS = 1;

/**
 * postgres.js waits up to 20 s between reconnection attempts once a few have failed, and
 * queries queue behind that wait: during an outage requests took 20-30 s to fail. A short,
 * jittered, capped delay keeps failures fast and recovery prompt; a local pool of a few
 * connections retrying once a second costs the database nothing.
 */
function reconnectDelaySeconds(retries: number): number {
  return Math.min(0.05 * 2 ** retries, MAX_RECONNECT_DELAY_SECONDS) * (0.5 + Math.random() / 2);
}

export function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.kind === 'postgres'
    ? Promise.resolve(openPostgres(options.url, options.poolMax))
    : openPglite(options.dataDir);
}

function openPostgres(url: string, poolMax: number): DatabaseHandle {
  const client = postgres(url, {
    max: poolMax,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    idle_timeout: 60,
    backoff: reconnectDelaySeconds,
    onnotice: () => undefined,
    connection: { application_name: 'petstore', statement_timeout: STATEMENT_TIMEOUT_MS },
  });
  const db = drizzlePostgres(client, { schema, casing: schema.DATABASE_CASING });
  attachRunner(db, postgresRunner(client));
  const locks = postgresSessionLocks(client);
  return {
    kind: 'postgres',
    db,
    poolSize: poolMax,
    migrate: () => migratePostgres(url),
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    listen: (channel, onNotify, onListening) => client.listen(channel, onNotify, onListening),
    sessionLocks: locks,
    close: async () => {
      await locks.close();
      await client.end({ timeout: 5 });
    },
  };
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  if (!dataDir.includes('://')) mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
  const db = drizzlePglite(client, { schema, casing: schema.DATABASE_CASING });
  attachRunner(db, pgliteRunner(client));
  return {
    kind: 'pglite',
    db,
    poolSize: 1,
    migrate: () => migratePglite(db),
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    listen: async (channel, onNotify, onListening) => {
      const unlisten = await client.listen(channel, onNotify);
      onListening();
      return { unlisten: () => unlisten() };
    },
    sessionLocks: undefined,
    close: () => client.close(),
  };
}
