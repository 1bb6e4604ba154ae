import postgres from 'postgres';
import { vi } from 'vitest';
import { openDatabase } from '../../db/client.js';
import type { ReplicaState } from '../../db/replicas/replica.js';
import { startPrivatePostgres, startStandby, type PrivatePostgres } from './private-postgres.js';
import { startTestServer, type TestServer } from './server.js';

/** A private primary and its hot standbys, streaming; the machine's server is never touched. */
export interface Replication {
  primary: PrivatePostgres;
  standbys: PrivatePostgres[];
  destroy(): Promise<void>;
}

export async function startReplication(
  standbySettings: Record<string, string>[] = [{}],
): Promise<Replication> {
  const primary = await startPrivatePostgres();
  const standbys: PrivatePostgres[] = [];
  try {
    for (const settings of standbySettings)
      standbys.push(await startStandby(primary, { settings }));
  } catch (error) {
    await Promise.all([...standbys, primary].map((server) => server.destroy()));
    throw error;
  }
  return {
    primary,
    standbys,
    destroy: async () => {
      await Promise.all([...standbys, primary].map((server) => server.destroy()));
    },
  };
}

/** Runs one statement on a server of its own connection, closed after. */
export async function onServer(url: string, statement: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe(statement);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

export interface ReplicaServerOptions {
  replicaUrls: string[];
  maxLagMs?: number;
  waitMs?: number;
  /** Leave the database's schema as it is (another server already migrated it). */
  migrate?: boolean;
}

/** The service in this process on `primaryUrl`, reading from `replicaUrls`. */
export async function replicaServer(
  primaryUrl: string,
  { replicaUrls, maxLagMs = 1_000, waitMs = 50, migrate = true }: ReplicaServerOptions,
): Promise<TestServer> {
  const options = {
    kind: 'postgres' as const,
    url: primaryUrl,
    poolMax: 5,
    replicas: { urls: replicaUrls, maxLagMs, waitMs },
  };
  const handle = await openDatabase(options);
  if (migrate) await handle.migrate();
  return startTestServer({ database: { handle, options, destroy: () => handle.close() } });
}

/** Waits until the server's replicas are all in `state` (the background check moved them). */
export async function replicasAre(server: TestServer, state: ReplicaState): Promise<void> {
  const replicas = server.database.handle.replicas;
  if (!replicas) throw new Error('the server has no replicas');
  await vi.waitFor(
    () => {
      const states = replicas.status().map((replica) => replica.state);
      if (states.some((each) => each !== state)) throw new Error(`replicas: ${states.join(', ')}`);
    },
    { timeout: 30_000, interval: 20 },
  );
}

/** Reads served so far by each target: a replica's host:port, or `primary`. */
export function servedBy(server: TestServer): Record<string, number> {
  return Object.fromEntries(server.database.handle.replicas?.counts().served ?? []);
}

/**
 * Waits until every replica of the server has replayed what the primary has now (the
 * migrations, say): a standby applying commits late would otherwise answer from before them.
 */
export async function replicasCaughtUp(server: TestServer, primaryUrl: string): Promise<void> {
  const sql = postgres(primaryUrl, { max: 1, onnotice: () => undefined });
  let position: bigint;
  try {
    const [row] = await sql<{ position: string }[]>`
      select (pg_current_wal_flush_lsn() - '0/0'::pg_lsn)::text as position`;
    position = BigInt(row?.position ?? '0');
  } finally {
    await sql.end({ timeout: 1 });
  }
  await vi.waitFor(
    () => {
      const behind = server.database.handle.replicas?.replicas.filter((r) => r.replayed < position);
      if (behind?.length) throw new Error(`behind: ${behind.map((r) => r.name).join(', ')}`);
    },
    { timeout: 30_000, interval: 20 },
  );
}

/**
 * Runs every step of an afterAll in order, each whether or not those before it failed (or
 * found nothing started), so no private server outlives a file whose beforeAll failed halfway;
 * then throws the first failure.
 */
export async function cleanUp(...steps: (() => Promise<unknown>)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
}
