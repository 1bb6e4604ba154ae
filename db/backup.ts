import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * A copy of an open PGlite database's data folder, as a gzipped tar. The checkpoint first
 * writes every committed change into the table files, so a restore starts without replaying
 * the log; PGlite then copies the folder while no statement runs (it holds its query lock), so
 * the copy is a state the database was in, as after a crash at that moment at worst.
 */
export async function dumpPglite(client: PGlite): Promise<Blob> {
  await client.exec('CHECKPOINT');
  return client.dumpDataDir('gzip');
}

/** Whether `dataDir` holds a PGlite database (PostgreSQL writes PG_VERSION when it creates one). */
export function holdsDatabase(dataDir: string): boolean {
  return existsSync(join(dataDir, 'PG_VERSION'));
}

/** What `dataDir` holds; nothing when the folder does not exist. */
export async function folderEntries(dataDir: string): Promise<string[]> {
  return existsSync(dataDir) ? readdir(dataDir) : [];
}

/**
 * Creates the database in `dataDir` from a copy `dumpPglite` made, and checks that it opens and
 * answers. The caller makes sure the folder is empty: PGlite would otherwise unpack over it.
 */
export async function restorePglite(dataDir: string, archiveFile: string): Promise<void> {
  const archive = new Blob([await readFile(archiveFile)]);
  const client = await PGlite.create({ dataDir, loadDataDir: archive });
  try {
    await client.query('select 1');
  } finally {
    await client.close();
  }
}
