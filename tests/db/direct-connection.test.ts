import { expect, it } from 'vitest';
import { reachesServerDirectly } from '../../db/direct-connection.js';
import { describeOnPostgres, testDatabaseTarget } from '../helpers/database.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

/**
 * Named statements are used only on connections the server sees directly; a pooler in
 * transaction mode, or any proxy, keeps them unnamed.
 */
const target = testDatabaseTarget();

describeOnPostgres('reachesServerDirectly (PostgreSQL projects)', () => {
  it('is true for the server itself', async () => {
    if (target.kind !== 'postgres') return;
    expect(await reachesServerDirectly(target.url)).toBe(true);
  });

  it('is false through a proxy that connects from a port of its own', async () => {
    if (target.kind !== 'postgres') return;
    const server = new URL(target.url);
    const proxy = await startTcpProxy(server.hostname, Number(server.port || 5432));
    try {
      const proxied = new URL(target.url);
      proxied.port = String(proxy.port);
      expect(await reachesServerDirectly(proxied.toString())).toBe(false);
    } finally {
      await proxy.close();
    }
  });

  it.runIf(target.kind === 'postgres' && target.poolerUrl !== undefined)(
    'is false through PgBouncer',
    async () => {
      if (target.kind !== 'postgres' || !target.poolerUrl) return;
      expect(await reachesServerDirectly(target.poolerUrl)).toBe(false);
    },
  );
});
