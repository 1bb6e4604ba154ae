import { readFile } from 'node:fs/promises';
import { openDatabase, type DatabaseHandle } from '../../db/client.js';
import { emptyDatabaseFolder, findEmptyDatabase } from '../../db/embedded/empty-database.js';
import { folderEntries } from '../../db/embedded/folder.js';
import type { Logger } from '../support/logger.js';
import type { Config } from './config.js';

/**
 * The database the configuration names: PostgreSQL with DATABASE_URL, else the embedded one.
 * `logger` hears how an empty data folder was filled.
 */
export async function openConfiguredDatabase(
  config: Config,
  poolMax = config.DATABASE_POOL_MAX,
  logger?: Logger,
): Promise<DatabaseHandle> {
  if (config.DATABASE_URL) {
    return openDatabase({
      kind: 'postgres',
      url: config.DATABASE_URL,
      poolMax,
      ...(config.DATABASE_DIRECT_URL && { directUrl: config.DATABASE_DIRECT_URL }),
      replicas: {
        urls: config.DATABASE_REPLICA_URLS,
        maxLagMs: config.REPLICA_MAX_LAG,
        waitMs: config.REPLICA_WAIT,
      },
    });
  }
  const archive = await emptyFolderArchive(config.PGLITE_DIR, logger);
  return openDatabase({
    kind: 'pglite',
    dataDir: config.PGLITE_DIR,
    settings: {
      sharedBuffers: config.PGLITE_SHARED_BUFFERS,
      maxWalSize: config.PGLITE_MAX_WAL_SIZE,
      minWalSize: config.PGLITE_MIN_WAL_SIZE,
    },
    ...(archive && { archive }),
  });
}

/**
 * For an absent or empty data folder, or an in-memory database, the migrated empty database the build made: PGlite
 * unpacks it instead of running initdb, whose second WebAssembly instance took ~770 MiB the
 * process kept and 7-32 s on a busy machine. Without one for these migrations (a tsx run where
 * the tests have not made it, migrations changed since the build) PGlite runs initdb as before. A folder with anything in it is PGlite's to
 * judge: it would unpack over it.
 */
export async function emptyFolderArchive(
  dataDir: string,
  logger?: Logger,
  folder = emptyDatabaseFolder,
): Promise<Blob | undefined> {
  // An in-memory database starts empty, as an empty folder does; other URLs are PGlite's.
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory && (dataDir.includes('://') || (await folderEntries(dataDir)).length > 0)) {
    return undefined;
  }
  const { file, found } = await findEmptyDatabase(folder);
  if (!found) {
    logger?.warn(
      { dataDir, archive: file },
      'embedded database: empty data folder and no migrated archive for these migrations (npm run build makes it): running initdb, which is slow and takes ~770 MiB this process keeps',
    );
    return undefined;
  }
  logger?.info(
    { dataDir, archive: file },
    'embedded database: filling the empty data folder from the migrated archive',
  );
  return new Blob([await readFile(file)]);
}
