import { createPostgresDatabase, postgresTarget } from './database.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export interface ProxiedDatabase {
  /** The service's DATABASE_URL: the database through the proxy. */
  url: string;
  /** Cuts, refuses or stalls every connection to the database. */
  proxy: TcpProxy;
  destroy(): Promise<void>;
}

/**
 * A database of the test's own on the project's PostgreSQL (behind PgBouncer in the pgbouncer
 * project), reached through a loopback proxy the test can cut, refuse or stall.
 */
export async function createProxiedDatabase(): Promise<ProxiedDatabase> {
  const database = await createPostgresDatabase(postgresTarget());
  const address = new URL(database.url);
  const proxy = await startTcpProxy(address.hostname, Number(address.port || 5432));
  address.hostname = '127.0.0.1';
  address.port = String(proxy.port);
  return {
    url: address.toString(),
    proxy,
    destroy: async () => {
      await proxy.close();
      await database.drop();
    },
  };
}
