import { describe, expect, it } from 'vitest';
import { withinTime } from '../../db/within-time.js';
import { describeOnPostgres } from '../helpers/database.js';
import { connectionReset, POSTGRES_DRIVERS, tracedConnection } from '../helpers/postgres-driver.js';

/**
 * patches/postgres+3.4.9.patch: a socket that fails (a reset) reports its error at once and
 * its close only once the handle has closed, a turn of the event loop later. A transaction
 * rolls back as soon as its failed statement is reported, in between: postgres.js queued that
 * rollback behind the failed statement, and the close, coming with an error, rejected nothing.
 * The rollback was never answered, and held the event feed's read for good after a cut (the
 * connection too: once reconnected it waited for the rollback's reply).
 */
describeOnPostgres('postgres.js when a socket fails', () => {
  describe.each(Object.entries(POSTGRES_DRIVERS))('postgres.js (%s)', (_, connectTo) => {
    it('rejects a query sent between the socket’s error and its close', async () => {
      const { sql: single, sockets } = tracedConnection(connectTo);
      try {
        const reserved = await single.reserve();
        await reserved`select 1`;
        const failing = reserved`select pg_sleep(30)`;
        setImmediate(() => {
          sockets[0]?.destroy(connectionReset());
        });
        // As postgresTransaction does: the rollback follows the failure at once.
        const rollback = failing.then(
          () => undefined,
          () => reserved`rollback`.catch((error: unknown) => error),
        );
        expect(await withinTime(rollback, 5_000)).toMatchObject({ code: 'CONNECTION_CLOSED' });
        reserved.release();
        expect(await withinTime(single`select 2 as two`, 5_000)).toEqual([{ two: 2 }]);
      } finally {
        await single.end({ timeout: 1 });
      }
    });
  });
});
