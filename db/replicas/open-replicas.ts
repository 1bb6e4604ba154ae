import type { Sql } from 'postgres';
import { preferNamedWhenDirect } from '../direct-connection.js';
import { postgresRunners, type PostgresClients } from '../runner.js';
import { ReadReplicas, type ReplicaTiming } from './read-replicas.js';
import { Replica } from './replica.js';

export interface ReplicaOptions extends Omit<ReplicaTiming, 'checkMs'> {
  /** DATABASE_REPLICA_URLS. */
  urls: string[];
}

export interface OpenReplicas {
  replicas: ReadReplicas;
  close(): Promise<void>;
}

/**
 * Checked four times within REPLICA_MAX_LAG, and at least every 250 ms: a replica's delay is
 * known to within a check, and a few statements a second per process cost a server nothing.
 */
const checkIntervalMs = (maxLagMs: number) => Math.max(10, Math.min(250, maxLagMs / 4));

/** host:port of a URL: what logs and metrics may name (a URL may hold a password). */
const nameOf = (url: string) => {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || '5432'}`;
};

/**
 * The replicas of DATABASE_REPLICA_URLS, each with connections of its own split as the
 * primary's are (`connect`), its statements named only where it proves to be reached directly
 * (not through a pooler), as on the primary; `primary` takes the background checks of the
 * primary's position.
 */
export function openReplicas(
  options: ReplicaOptions,
  primary: Sql,
  connect: (url: string) => PostgresClients,
): OpenReplicas {
  const stops: (() => void)[] = [];
  const clients: PostgresClients[] = [];
  const replicas = options.urls.map((url) => {
    const connected = connect(url);
    clients.push(connected);
    const mode = { prepared: false };
    stops.push(preferNamedWhenDirect(url, mode));
    // Readings are quick reads: they share the quick reads' connections.
    return new Replica(nameOf(url), connected.reads, postgresRunners(connected, mode));
  });
  const set = new ReadReplicas(primary, replicas, {
    maxLagMs: options.maxLagMs,
    waitMs: options.waitMs,
    checkMs: checkIntervalMs(options.maxLagMs),
  });
  set.start();
  return {
    replicas: set,
    close: async () => {
      set.stop();
      for (const stop of stops) stop();
      await Promise.all(
        clients
          .flatMap(({ pool, reads }) => (reads === pool ? [pool] : [pool, reads]))
          .map((client) => client.end({ timeout: 5 })),
      );
    },
  };
}
