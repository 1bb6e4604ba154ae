import { execFile } from 'node:child_process';
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findEmptyDatabase } from '../../db/embedded/empty-database.js';
import { spawnServer } from '../helpers/child-server.js';
import { describeOnEmbedded } from '../helpers/database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The usual umask of a login, under which a plain mkdir or open gives others read access. */
const UMASK = '022';

/** Every folder and file under `dir`, the folder itself included, that others may read. */
async function openToOthers(dir: string): Promise<string[]> {
  const paths = [dir];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isSymbolicLink()) paths.push(join(entry.parentPath, entry.name));
  }
  const loose: string[] = [];
  for (const path of paths) {
    const stat = await lstat(path);
    const mode = stat.mode & 0o777;
    if (mode !== (stat.isDirectory() ? 0o700 : 0o600)) loose.push(`${mode.toString(8)} ${path}`);
  }
  return loose;
}

/** `npm run db:restore` under the usual umask. */
function restore(archive: string, dir: string): Promise<string> {
  const script = ['--import', 'tsx', 'scripts/db-restore.ts', archive, '--dir', dir];
  return new Promise((resolve, reject) => {
    execFile(
      '/bin/sh',
      ['-c', `umask ${UMASK} && exec "$0" "$@"`, process.execPath, ...script],
      { cwd: ROOT, env: { PATH: process.env.PATH }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(stderr || error.message));
        else resolve(stdout);
      },
    );
  });
}

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'petstore-modes-'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

/**
 * The embedded database's folder holds every pet and the hashes of every key, and the first
 * key in clear: others on the machine may read none of it, whatever the umask the service
 * was started under.
 */
describeOnEmbedded('the data folder is its owner’s only', { timeout: 180_000 }, () => {
  it('a first start makes the folder 0700, and every folder 0700 and file 0600 in it', async () => {
    const dataDir = join(base, 'first', 'pglite');
    const server = await spawnServer({ PGLITE_DIR: dataDir }, { umask: UMASK });
    try {
      await server.waitForLog((line) => line.file === join(dataDir, 'first-api-key'));
      expect(((await lstat(dataDir)).mode & 0o777).toString(8)).toBe('700');
    } finally {
      await server.stop();
    }
    expect(await openToOthers(dataDir)).toEqual([]);
  });

  it('a restored folder is 0700, and every folder 0700 and file 0600 in it', async () => {
    const { file, found } = await findEmptyDatabase();
    expect(found, `${file} (made by the tests' global setup)`).toBe(true);
    const dataDir = join(base, 'restored');
    await restore(file, dataDir);
    expect(await openToOthers(dataDir)).toEqual([]);
  });
});
