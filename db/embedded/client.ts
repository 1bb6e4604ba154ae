import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import type { DatabaseHandle } from '../handle.js';
import { migrationsFolder } from '../migrate.js';
import { attachRunners, pgliteRunners } from '../runner.js';
import * as schema from '../schema.js';
import { backupPglite, dumpPglite } from './backup.js';
import { ownerOnlyFolder, restrictToOwner } from './folder.js';
import type { EmbeddedSettings } from './settings.js';

/**
 * PGlite's own start parameters, then the settings (./settings.ts), and pg_trgm: the migrations
 * create it, which PGlite can only do when the extension is loaded.
 */
export function pgliteOptions(settings: EmbeddedSettings): PGliteOptions {
  return {
    extensions: { pg_trgm },
    startParams: [
      ...PGlite.defaultStartParams,
      ...['-c', `shared_buffers=${settings.sharedBuffers}`],
      ...['-c', `max_wal_size=${settings.maxWalSize}`],
      ...['-c', `min_wal_size=${settings.minWalSize}`],
    ],
  };
}

export async function openPglite(
  dataDir: string,
  settings: EmbeddedSettings,
  archive: Blob | undefined,
): Promise<DatabaseHandle> {
  const onDisk = !dataDir.includes('://');
  if (onDisk) ownerOnlyFolder(dataDir);
  const client = await PGlite.create(dataDir, {
    ...pgliteOptions(settings),
    ...(archive ? { loadDataDir: archive } : {}),
  });
  if (onDisk) await restrictToOwner(dataDir);
  const db = drizzle(client, { schema, casing: schema.DATABASE_CASING });
  attachRunners(db, pgliteRunners(client));
  return {
    kind: 'pglite',
    db,
    poolSize: 1,
    migrate: async () => {
      await migrate(db, { migrationsFolder });
    },
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    listen: async (channel, onNotify, onListening) => {
      const unlisten = await client.listen(channel, onNotify);
      onListening();
      return { unlisten: () => unlisten() };
    },
    dump: () => dumpPglite(client),
    backup: (out, signal) => backupPglite(client, dataDir, out, signal),
    close: async () => {
      await client.close();
      if (onDisk) await restrictToOwner(dataDir);
    },
  };
}
