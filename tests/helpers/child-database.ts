import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDatabase, testDatabaseTarget } from './database.js';

export interface ChildDatabase {
  /** Environment that points a server process at this database. */
  env: Record<string, string>;
  destroy(): Promise<void>;
}

/**
 * Storage that outlives a server process, for the project's target: a PGlite data folder of its
 * own, or a database of its own on the PostgreSQL server.
 */
export async function createChildDatabase(): Promise<ChildDatabase> {
  const target = testDatabaseTarget();
  if (target.kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-pglite-'));
    return {
      env: { PGLITE_DIR: dir },
      destroy: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    };
  }
  const { url, drop } = await createPostgresDatabase(target);
  return { env: { DATABASE_URL: url }, destroy: drop };
}
