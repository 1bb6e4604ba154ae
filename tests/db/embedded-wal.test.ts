import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/client.js';
import { DEFAULT_EMBEDDED_SETTINGS } from '../../db/embedded/settings.js';
import { checkpointIfWalFull } from '../../db/embedded/wal.js';
import { describeOnEmbedded } from '../helpers/database.js';

const LIMIT_MIB = 32;
const BATCHES = 8;

const walMiB = (dataDir: string) =>
  readdirSync(join(dataDir, 'pg_wal'))
    .map((name) => statSync(join(dataDir, 'pg_wal', name)))
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + entry.size, 0) /
  2 ** 20;

describeOnEmbedded('the embedded database’s WAL under a write load', () => {
  let dataDir: string;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'petstore-wal-'));
    handle = await openDatabase({
      kind: 'pglite',
      dataDir,
      settings: { ...DEFAULT_EMBEDDED_SETTINGS, maxWalSize: `${LIMIT_MIB}MB`, minWalSize: '32MB' },
    });
    await handle.migrate();
  }, 120_000);

  afterAll(async () => {
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stays within twice max_wal_size when checkpointed as the service does between writes', async () => {
    let largest = 0;
    // About 20 MiB of WAL a batch: 160 MiB in all, five times the limit.
    for (let batch = 0; batch < BATCHES; batch++) {
      await handle.db.execute(sql`
          insert into events (type, data)
          select 'pet.updated', jsonb_build_object('id', g, 'pad', repeat('x', 1000))
          from generate_series(1, 15000) g`);
      await checkpointIfWalFull(handle.db);
      largest = Math.max(largest, walMiB(dataDir));
    }
    expect(largest).toBeLessThanOrEqual(2 * LIMIT_MIB);
  }, 120_000);
});
