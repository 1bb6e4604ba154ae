import { sql } from 'drizzle-orm';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { preferNamedWhenDirect } from './direct-connection.js';
import { attachRunners, postgresRunners, type PostgresClients } from './runner.js';
import type { Database } from './database.js';
import type { DatabaseHandle } from './handle.js';
import { DEFAULT_EMBEDDED_SETTINGS, type EmbeddedSettings } from './embedded/settings.js';
import { migratePostgres } from './migrate.js';
import { openReplicas, type ReplicaOptions } from './replicas/open-replicas.js';
import * as schema from './schema.js';

export type { Database, DatabaseHandle };

export type DatabaseOptions =
  | {
      kind: 'postgres';
      url: string;
      poolMax: number;
      /**
       * A direct connection to the server when `url` names a pooler in transaction mode, for what
       * needs a session of its own (LISTEN, the migrations' lock).
       */
      directUrl?: string;
      /** Hot standbys for the reads the contract lets them serve (db/replicas). */
      replicas?: ReplicaOptions;
    }
  | {
      kind: 'pglite';
      dataDir: string;
      settings?: EmbeddedSettings;
      /**
       * Starts from a copy `dump` made instead of an empty database: PGlite unpacks it rather
       * than running initdb, which is most of the cost of opening a new one.
       */
      archive?: Blob;
    };

const CONNECT_TIMEOUT_SECONDS = 5;
const MAX_RECONNECT_DELAY_SECONDS = 1;
/**
 * Without a direct URL, how often a listener is told it may have missed notifications: the
 * longest a change then takes to reach another process's streams.
 */
const LISTEN_FALLBACK_MS = 500;

/**
 * postgres.js waits up to 20 s between reconnection attempts once a few have failed, and
 * queries queue behind that wait: during an outage requests took 20-30 s to fail. A short,
 * jittered, capped delay keeps failures fast and recovery prompt; a local pool of a few
 * connections retrying once a second costs the database nothing.
 */
function reconnectDelaySeconds(retries: number): number {
  return Math.min(0.05 * 2 ** retries, MAX_RECONNECT_DELAY_SECONDS) * (0.5 + Math.random() / 2);
}

const MIN_POOL_TO_SPLIT = 4;

/**
 * Of a process's DATABASE_POOL_MAX connections, those kept for quick reads: a quarter, rounded
 * up. Reads pipelined on three connections served 15-30% more gets a second than on ten
 * (docs/performance.md); writes keep the rest, each transaction a connection of its own. Below
 * four connections none is kept: one left for every transaction would run writes one at a time.
 */
export function readConnections(poolMax: number): number {
  return poolMax < MIN_POOL_TO_SPLIT ? 0 : Math.ceil(poolMax / 4);
}

/**
 * The embedded engine is loaded only when it is opened: a service on PostgreSQL never holds
 * PGlite's code (docs/performance.md, peak memory).
 */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.kind === 'postgres') {
    return openPostgres(options);
  }
  const { openPglite } = await import('./embedded/client.js');
  return openPglite(
    options.dataDir,
    options.settings ?? DEFAULT_EMBEDDED_SETTINGS,
    options.archive,
  );
}

function openPostgres({
  url,
  poolMax,
  directUrl,
  replicas: replicaOptions,
}: Extract<DatabaseOptions, { kind: 'postgres' }>): DatabaseHandle {
  const options = {
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    backoff: reconnectDelaySeconds,
    onnotice: () => undefined,
    connection: { application_name: 'petstore' },
  } as const;
  const readMax = readConnections(poolMax);
  const pooled = (at: string, max: number) => postgres(at, { ...options, max, idle_timeout: 60 });
  // Each replica takes reads the primary would otherwise serve: connections split as its own.
  const connect = (at: string): PostgresClients => {
    const pool = pooled(at, poolMax - readMax);
    return { pool, reads: readMax > 0 ? pooled(at, readMax) : pool };
  };
  const { pool: client, reads } = connect(url);
  // LISTEN needs a session of its own; postgres.js opens one connection for it on this client.
  const listener = directUrl ? postgres(directUrl, { ...options, max: 1 }) : client;
  const db = drizzlePostgres(client, { schema, casing: schema.DATABASE_CASING });
  const mode = { prepared: false };
  attachRunners(db, postgresRunners({ pool: client, reads }, mode));
  // A direct URL beside it says DATABASE_URL is a pooler: no need to ask.
  const stopProbing = directUrl ? () => undefined : preferNamedWhenDirect(url, mode);
  const replicas =
    replicaOptions && replicaOptions.urls.length > 0
      ? openReplicas(replicaOptions, reads, connect)
      : undefined;
  return {
    kind: 'postgres',
    db,
    ...(replicas && { replicas: replicas.replicas }),
    poolSize: poolMax,
    migrate: () => migratePostgres(directUrl ?? url),
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    listen: async (channel, onNotify, onListening) => {
      const listening = await listener.listen(channel, onNotify, onListening);
      if (directUrl) return listening;
      // Not once the server proved it sees this process's connections directly (the same proof
      // that lets statements be named): then LISTEN on this URL reaches us.
      const poll = setInterval(() => {
        if (!mode.prepared) onListening();
      }, LISTEN_FALLBACK_MS);
      poll.unref();
      return {
        unlisten: () => {
          clearInterval(poll);
          return listening.unlisten();
        },
      };
    },
    close: async () => {
      stopProbing();
      await Promise.all([
        replicas?.close(),
        client.end({ timeout: 5 }),
        reads !== client && reads.end({ timeout: 5 }),
        listener !== client && listener.end({ timeout: 5 }),
      ]);
    },
  };
}
