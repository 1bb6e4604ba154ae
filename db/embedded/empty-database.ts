import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../client.js';
import { migrationsFolder } from '../migrate.js';

/**
 * Beside the migrations the code runs, like drizzle/: dist/empty-database/ for the compiled
 * service (the build makes it), empty-database/ at the repository's root under tsx (the tests'
 * global setup makes it; a plain `npm run dev` has none and runs initdb).
 */
export const emptyDatabaseFolder = fileURLToPath(new URL('../../empty-database/', import.meta.url));

/** The installed PGlite's version: another PostgreSQL build may not read the archive's files. */
export async function pgliteVersion(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const manifest = JSON.parse(
    await readFile(join(dirname(entry), '..', 'package.json'), 'utf8'),
  ) as { version: string };
  return manifest.version;
}

/**
 * The archive's file name: the PGlite version and a hash of what the migrator reads (the
 * journal and the SQL files), so any change to either names another file and a start never
 * unpacks a cluster this code did not make.
 */
async function emptyDatabaseName(): Promise<string> {
  const hash = createHash('sha256');
  const sql = (await readdir(migrationsFolder)).filter((name) => name.endsWith('.sql')).sort();
  for (const name of [...sql, join('meta', '_journal.json')]) {
    hash.update(`${name}\0`).update(await readFile(join(migrationsFolder, name)));
  }
  return `${await pgliteVersion()}-${hash.digest('hex').slice(0, 16)}.tar.gz`;
}

/** The archive for the installed PGlite and the committed migrations, when it was made. */
export async function findEmptyDatabase(
  folder = emptyDatabaseFolder,
): Promise<{ file: string; found: boolean }> {
  const file = join(folder, await emptyDatabaseName());
  return { file, found: existsSync(file) };
}

/**
 * Makes the archive unless it exists: an in-memory database, migrated and dumped as backups are.
 * That runs initdb, in this process: the build's, which exits soon after, rather than the
 * service's, which would keep the memory initdb took. Archives of other migrations or another
 * PGlite are removed; the new one is written under a temporary name and renamed, so a start
 * never reads a partial file.
 */
export async function makeEmptyDatabase(): Promise<{ file: string; made: boolean }> {
  const folder = emptyDatabaseFolder;
  const { file, found } = await findEmptyDatabase();
  if (found) return { file, made: false };
  await mkdir(folder, { recursive: true });
  const handle = await openDatabase({ kind: 'pglite', dataDir: 'memory://' });
  try {
    await handle.migrate();
    const archive = await handle.dump?.();
    if (!archive) throw new Error('the embedded database could not be dumped');
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, Buffer.from(await archive.arrayBuffer()));
    await rename(partial, file);
  } finally {
    await handle.close();
  }
  for (const name of await readdir(folder)) {
    const other = join(folder, name);
    if (name.endsWith('.tar.gz') && other !== file) await rm(other, { force: true });
  }
  return { file, made: true };
}
