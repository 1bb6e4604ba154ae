import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { executeRows } from '../../db/database.js';
import { DEFAULT_EMBEDDED_SETTINGS } from '../../db/embedded/settings.js';
import { loadConfig } from '../../server/process/config.js';
import { describeOnEmbedded } from '../helpers/database.js';

async function shown(settings?: typeof DEFAULT_EMBEDDED_SETTINGS) {
  const handle = await openDatabase({ kind: 'pglite', dataDir: 'memory://', settings });
  try {
    const rows = await executeRows<{ name: string; setting: string }>(
      handle.db,
      sql`select name, current_setting(name) as setting from unnest(
        array['shared_buffers', 'max_wal_size', 'min_wal_size']) as name`,
    );
    return Object.fromEntries(rows.map((row) => [row.name, row.setting]));
  } finally {
    await handle.close();
  }
}

describeOnEmbedded('the embedded database settings', { timeout: 120_000 }, () => {
  it('start PGlite with the service’s defaults rather than PostgreSQL’s', async () => {
    expect(await shown()).toEqual({
      shared_buffers: '16MB',
      max_wal_size: '64MB',
      min_wal_size: '32MB',
    });
  });

  it('are read from the configuration', async () => {
    const config = loadConfig({
      PGLITE_SHARED_BUFFERS: '8MB',
      PGLITE_MAX_WAL_SIZE: '128MB',
      PGLITE_MIN_WAL_SIZE: '48MB',
    });
    expect(
      await shown({
        sharedBuffers: config.PGLITE_SHARED_BUFFERS,
        maxWalSize: config.PGLITE_MAX_WAL_SIZE,
        minWalSize: config.PGLITE_MIN_WAL_SIZE,
      }),
    ).toEqual({ shared_buffers: '8MB', max_wal_size: '128MB', min_wal_size: '48MB' });
  });

  it('refuse a size PostgreSQL would not read', () => {
    expect(() => loadConfig({ PGLITE_SHARED_BUFFERS: '16 megabytes' })).toThrow(
      /PGLITE_SHARED_BUFFERS/,
    );
  });
});
