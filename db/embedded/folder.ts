import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { chmod, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Whether `dataDir` holds a PGlite database (PostgreSQL writes PG_VERSION when it creates one). */
export function holdsDatabase(dataDir: string): boolean {
  return existsSync(join(dataDir, 'PG_VERSION'));
}

/** What `dataDir` holds; nothing when the folder does not exist. */
export async function folderEntries(dataDir: string): Promise<string[]> {
  return existsSync(dataDir) ? readdir(dataDir) : [];
}

/** PostgreSQL's own modes for a data folder without group access (pg_dir_create_mode). */
const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Creates the database's folder, or takes one that exists, readable by its owner only: the
 * mode is set rather than asked of mkdir, which the umask would loosen or tighten.
 */
export function ownerOnlyFolder(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: FOLDER_MODE });
  chmodSync(dataDir, FOLDER_MODE);
}

/**
 * Makes every folder and file under `dataDir` owner-only. PostgreSQL creates its own files
 * 0600, but PGlite writes the files of a new or unpacked database with the modes of its
 * in-memory file system (0666 files, 0755 folders) and rewrites its relation cache files 0644;
 * the folder's own 0700 keeps them from other users meanwhile, and this puts them right
 * whenever the database is opened, restored or closed.
 */
export async function restrictToOwner(dataDir: string): Promise<void> {
  const entries = await readdir(dataDir, { recursive: true, withFileTypes: true });
  await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() || entry.isFile())
      .map((entry) =>
        chmod(join(entry.parentPath, entry.name), entry.isDirectory() ? FOLDER_MODE : FILE_MODE),
      ),
  );
  await chmod(dataDir, FOLDER_MODE);
}
