import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/client.js';
import { executeRows } from '../../db/database.js';
import { DEFAULT_EMBEDDED_SETTINGS } from '../../db/embedded/settings.js';
import { startEmbeddedMaintenance } from '../../server/process/maintenance.js';
import { createLogger } from '../../server/support/logger.js';
import { describeOnEmbedded } from '../helpers/database.js';
import { logSink } from '../helpers/server.js';

const redo = async (handle: DatabaseHandle) => {
  const [row] = await executeRows<{ redo: string }>(
    handle.db,
    sql`select (pg_control_checkpoint()).redo_lsn::text as redo`,
  );
  return row?.redo;
};

describeOnEmbedded('the embedded database’s WAL, looked at as commits go', () => {
  let dataDir: string;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'petstore-wal-watch-'));
    handle = await openDatabase({
      kind: 'pglite',
      dataDir,
      settings: { ...DEFAULT_EMBEDDED_SETTINGS, maxWalSize: '32MB' },
    });
    await handle.migrate();
  }, 120_000);
  afterAll(async () => {
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('checkpoints after a burst of commits passed half of max_wal_size, without waiting for a timer', async () => {
    // Every timer frozen: only the commits this process reports can start a look.
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval'] });
    const { sink, logs } = logSink();
    const maintenance = startEmbeddedMaintenance(handle, createLogger('info', sink), 3600);
    try {
      const before = await redo(handle);
      // About 20 MiB of WAL, past the 16 MiB mark.
      await handle.db.execute(sql`
        insert into events (type, data)
        select 'pet.updated', jsonb_build_object('id', g, 'pad', repeat('x', 1000))
        from generate_series(1, 15000) g`);
      for (let commit = 0; commit < 64; commit++) maintenance.changed();
      await vi.waitFor(() => {
        expect(logs.some((line) => line.msg === 'embedded database checkpointed')).toBe(true);
      });
      expect(await redo(handle)).not.toBe(before);
    } finally {
      maintenance.stop();
      vi.useRealTimers();
    }
  });
});
