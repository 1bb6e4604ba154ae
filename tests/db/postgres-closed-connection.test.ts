import { EventEmitter, once } from 'node:events';
import { Socket } from 'node:net';
import type postgres from 'postgres';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withinTime } from '../../db/within-time.js';
import { describeOnPostgres, postgresTarget } from '../helpers/database.js';
import { connectionReset, POSTGRES_DRIVERS, tracedConnection } from '../helpers/postgres-driver.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * patches/postgres+3.4.9.patch, second part (porsager/postgres #1154, #1066, #1208): a query
 * given to a connection whose socket has closed used to be buffered for a `setImmediate` write
 * to a null socket, an uncaught TypeError that ended the process. A transaction rolls back on
 * the connection it holds after its query failed, and a reserved connection keeps being used,
 * so every cut with a transaction in flight did it (or, before leased slots, a stream lock). These run postgres.js
 * through a proxy to the test server and cut it; unpatched, the process dies here.
 * Third part: a query waiting behind a busy reserved connection was never answered nor
 * rejected once the connection closed, and held its caller (the event feed) for good. Fourth
 * (porsager/postgres #1195): a reserve waiting for a connection when one closed was dropped once
 * that connection opened again, and a transaction (the feed's read) waited forever. Fifth
 * (#1192): a connection lost while it read the array types ended the process.
 */
describeOnPostgres('postgres.js when its connections are cut', () => {
  describe.each(Object.entries(POSTGRES_DRIVERS))(
    'postgres.js (%s) when its connections are cut',
    (_, connectTo) => {
      let proxy: TcpProxy;
      let proxied: string;
      let sql: postgres.Sql;
      let closed: Promise<void>;

      beforeEach(async () => {
        const url = new URL(postgresTarget().url);
        proxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
        url.hostname = '127.0.0.1';
        url.port = String(proxy.port);
        proxied = url.toString();
        const closes = new EventEmitter();
        closed = once(closes, 'close').then(() => undefined);
        sql = connectTo(proxied, {
          max: 2,
          connect_timeout: 2,
          onnotice: () => undefined,
          onclose: () => closes.emit('close'),
        });
      });
      afterEach(async () => {
        await sql.end({ timeout: 1 });
        await proxy.close();
      });

      it('rejects the rollback of a transaction whose query the cut failed', async () => {
        const outcome = sql.begin(async (tx) => {
          await tx`select 1`;
          const slow = tx`select pg_sleep(30)`;
          await proxy.cut();
          await slow;
        });
        await expect(outcome).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
        await closed;
        // The rollback went to the closed connection: a write to a null socket would throw now.
        await new Promise((resolve) => setImmediate(resolve));
      });

      it('rejects a query on a reserved connection after the cut, and serves again after it', async () => {
        const reserved = await sql.reserve();
        expect(await reserved`select 1 as one`).toEqual([{ one: 1 }]);
        await proxy.cut();
        await closed;
        await expect(reserved`select 2`).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
        await new Promise((resolve) => setImmediate(resolve));
        reserved.release();

        await proxy.restore();
        expect(await sql`select 3 as three`).toEqual([{ three: 3 }]);
      });

      it('rejects the queries waiting behind a busy reserved connection when the cut closes it', async () => {
        const reserved = await sql.reserve();
        // A statement with a parameter is described first, which marks the connection busy: the
        // rollback after it waits in the reservation's queue for its answer, which never comes.
        const busy = reserved`select pg_sleep(${30})`.catch((error: unknown) => error);
        const waiting = reserved`rollback`.catch((error: unknown) => error);
        await proxy.cut();
        expect(await busy).toBeInstanceOf(Error);
        expect(await waiting).toMatchObject({ code: 'CONNECTION_CLOSED' });
        reserved.release();
      }, 10_000);

      it('hands a reserve that waited through a cut the connection that opens after it', async () => {
        const closes = new EventEmitter();
        // One connection, opened again a second after it closed: the database is back by then,
        // as when it returns within the service's reconnection delay.
        const single = connectTo(proxied, {
          max: 1,
          backoff: () => 1,
          onnotice: () => undefined,
          onclose: () => closes.emit('close'),
        });
        try {
          const holder = await single.reserve();
          // The only connection is reserved: this reserve waits in the pool's queue.
          const waiting = single.reserve();
          const closed = once(closes, 'close');
          await proxy.cut();
          await closed;
          await proxy.restore();
          const reserved = await withinTime(waiting, 5_000);
          expect(await reserved`select 1 as one`).toEqual([{ one: 1 }]);
          reserved.release();
          holder.release();
        } finally {
          await single.end({ timeout: 1 });
        }
      });

      it('loses no connection to a reserve that a failed connect rejected', async () => {
        const single = connectTo(proxied, {
          max: 1,
          backoff: () => 0.05,
          onnotice: () => undefined,
        });
        try {
          await proxy.cut();
          await expect(single.reserve()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
          await proxy.restore();
          expect(await withinTime(single`select 1 as one`, 5_000)).toEqual([{ one: 1 }]);
        } finally {
          await single.end({ timeout: 1 });
        }
      });

      it('connects again after a cut that dropped a buffered write', async () => {
        const { sql: single, sockets } = tracedConnection(connectTo);
        try {
          const reserved = await single.reserve();
          await reserved`select 1`;
          // In a check phase: the query's write waits for the next one, the socket's close comes
          // in this one's close phase, so the close cancels a write still buffered.
          const dropped = await new Promise<Promise<unknown>>((resolve) =>
            setImmediate(() => {
              const query = reserved`select 2`;
              sockets[0]?.destroy();
              resolve(query.catch((error: unknown) => error));
            }),
          );
          expect(await dropped).toMatchObject({ code: 'CONNECTION_CLOSED' });
          reserved.release();
          expect(await single`select 3 as three`).toEqual([{ three: 3 }]);
        } finally {
          await single.end({ timeout: 1 });
        }
      });

      it('keeps the process when a connection is lost while it reads the types', async () => {
        const unhandled: unknown[] = [];
        const record = (reason: unknown) => unhandled.push(reason);
        process.on('unhandledRejection', record);
        const { sql: single } = tracedConnection(connectTo, {
          backoff: () => 0.05,
          // The first connection is reset once it asks for the array types, its first query.
          onOpen: (socket, index) => {
            if (index > 0) return;
            const write = (chunk: Buffer) => Socket.prototype.write.call(socket, chunk);
            Object.assign(socket, {
              write: (chunk: Buffer) => {
                if (chunk.includes('pg_type'))
                  setImmediate(() => socket.destroy(connectionReset()));
                return write(chunk);
              },
            });
          },
        });
        try {
          await expect(single`select 1`).rejects.toMatchObject({ code: 'ECONNRESET' });
          await new Promise((resolve) => setTimeout(resolve, 50));
          expect(unhandled).toEqual([]);
          expect(await single`select 2 as two`).toEqual([{ two: 2 }]);
        } finally {
          process.off('unhandledRejection', record);
          await single.end({ timeout: 1 });
        }
      });
    },
  );
});
