import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Whether `dataDir` holds a PGlite database (PostgreSQL writes PG_VERSION when it creates one). */
export function holdsDatabase(dataDir: string): boolean {
  return existsSync(join(dataDir, 'PG_VERSION'));
}

/** What `dataDir` holds; nothing when the folder does not exist. */
export async function folderEntries(dataDir: string): Promise<string[]> {
  return existsSync(dataDir) ? readdir(dataDir) : [];
}
