import { openDatabase, type DatabaseHandle } from '../../db/client.js';
import type { Config } from './config.js';

/** The database the configuration names: PostgreSQL with DATABASE_URL, else the embedded one. */
export function openConfiguredDatabase(
  config: Config,
  poolMax = config.DATABASE_POOL_MAX,
): Promise<DatabaseHandle> {
  return openDatabase(
    config.DATABASE_URL
      ? {
          kind: 'postgres',
          url: config.DATABASE_URL,
          poolMax,
          ...(config.DATABASE_DIRECT_URL && { directUrl: config.DATABASE_DIRECT_URL }),
        }
      : {
          kind: 'pglite',
          dataDir: config.PGLITE_DIR,
          settings: {
            sharedBuffers: config.PGLITE_SHARED_BUFFERS,
            maxWalSize: config.PGLITE_MAX_WAL_SIZE,
            minWalSize: config.PGLITE_MIN_WAL_SIZE,
          },
        },
  );
}
