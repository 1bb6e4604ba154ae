import { readFile } from 'node:fs/promises';
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
