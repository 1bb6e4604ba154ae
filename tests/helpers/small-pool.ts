import { spawnServer, type ChildServer } from './child-server.js';
import { createPostgresDatabase, type PostgresTarget } from './database.js';
import { startPgBouncer } from './pgbouncer.js';

/** The server connections a pooler in front of a small managed database typically offers. */
export const POOLER_POOL_SIZE = 5;

export interface Instances {
  /** One origin per instance. */
  origins: string[];
  /** The database itself, bypassing any pooler: for what a test checks on the server. */
  directUrl: string;
  /** Two more instances on `directUrl`, for a run to compare with. */
  startDirect(): Promise<{ origins: string[]; stop(): Promise<void> }>;
  stop(): Promise<void>;
}

const startPair = async (env: Record<string, string>) => {
  const servers: ChildServer[] = await Promise.all([spawnServer(env), spawnServer(env)]);
  return {
    origins: servers.map((server) => server.origin),
    stop: async () => {
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
};

/**
 * Two instances of the service on a database of their own. In the `pgbouncer` project they
 * reach it through a PgBouncer of their own in transaction mode with `default_pool_size` 5 and
 * no direct URL, as in the field; elsewhere directly.
 */
export async function startTwoInstances(
  target: PostgresTarget,
  env: Record<string, string>,
): Promise<Instances> {
  const { directUrl, drop } = await createPostgresDatabase(target);
  const pooler =
    target.poolerUrl === undefined
      ? undefined
      : await startPgBouncer(target.url, { default_pool_size: String(POOLER_POOL_SIZE) });
  const url = pooler ? pooler.pooled(directUrl) : directUrl;
  const pair = await startPair({ ...env, DATABASE_URL: url }).catch(async (error: unknown) => {
    await pooler?.stop();
    await drop();
    throw error;
  });
  return {
    origins: pair.origins,
    directUrl,
    startDirect: () => startPair({ ...env, DATABASE_URL: directUrl }),
    stop: async () => {
      await pair.stop();
      await pooler?.stop();
      await drop();
    },
  };
}
