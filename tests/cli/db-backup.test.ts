import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { describeOnEmbedded } from '../helpers/database.js';
import { keysProcess } from '../helpers/keys-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BOOT_KEY = 'backup-test-key';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run db:backup` / `db:restore` as an operator runs them: a process of their own. */
function script(name: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', `scripts/${name}.ts`, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

let base: string;
const servers: ChildServer[] = [];

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'petstore-backup-'));
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

afterAll(() => rm(base, { recursive: true, force: true }));

async function startService(dataDir: string): Promise<ChildServer> {
  const server = await spawnServer({ PGLITE_DIR: dataDir, API_KEYS: BOOT_KEY });
  servers.push(server);
  return server;
}

async function call(server: ChildServer, key: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${server.origin}/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  return { status: response.status, body: await response.json() };
}

// The embedded database's folder is what is copied; each test starts services of its own.
describeOnEmbedded(
  'npm run db:backup and db:restore on the embedded database',
  { timeout: 180_000 },
  () => {
    it('backs up while the service runs; a service on the restored folder has the same pets and keys', async () => {
      const dataDir = join(base, 'live');
      const server = await startService(dataDir);
      for (const name of ['Rex', 'Tom', 'Kitty']) {
        expect(
          (
            await call(server, BOOT_KEY, '/pets', {
              method: 'POST',
              body: JSON.stringify({ name, categoryId: 2 }),
            })
          ).status,
        ).toBe(201);
      }
      const issued = await keysProcess(['create', '--name', 'kept', '--json'], {
        PGLITE_DIR: dataDir,
      });
      const { key } = JSON.parse(issued.stdout) as { key: string };
      const before = await call(server, key, '/pets?limit=100');

      const file = join(base, 'live.tar.gz');
      const backup = await script('db-backup', [file], { PGLITE_DIR: dataDir });
      expect(backup, backup.stderr).toMatchObject({ code: 0, stderr: '' });
      expect(backup.stdout).toContain(file);
      // The running service made the copy: the folder was never opened twice.
      expect(await server.waitForLog((line) => line.command === 'backup')).toMatchObject({
        msg: 'backup over the admin socket',
        exitCode: 0,
      });
      // A write after the backup is not in it.
      await call(server, key, '/pets', {
        method: 'POST',
        body: JSON.stringify({ name: 'Later', categoryId: 2 }),
      });

      const restoredDir = join(base, 'restored');
      const restore = await script('db-restore', [file, '--dir', restoredDir], {});
      expect(restore, restore.stderr).toMatchObject({ code: 0, stderr: '' });
      const restored = await startService(restoredDir);
      expect(await call(restored, key, '/pets?limit=100')).toEqual(before);
      expect((await call(restored, BOOT_KEY, '/pets?limit=100')).status).toBe(200);
    });

    it('backs up a folder no service holds by opening it itself', async () => {
      const dataDir = join(base, 'stopped');
      const server = await startService(dataDir);
      await call(server, BOOT_KEY, '/pets', {
        method: 'POST',
        body: JSON.stringify({ name: 'Solo', categoryId: 9 }),
      });
      await server.stop();
      servers.splice(0);

      const file = join(base, 'stopped.tar.gz');
      const backup = await script('db-backup', [file], { PGLITE_DIR: dataDir });
      expect(backup, backup.stderr).toMatchObject({ code: 0, stderr: '' });
      // An existing backup is never overwritten.
      expect(await script('db-backup', [file], { PGLITE_DIR: dataDir })).toMatchObject({ code: 1 });

      const restoredDir = join(base, 'stopped-restored');
      expect(await script('db-restore', [file, '--dir', restoredDir], {})).toMatchObject({
        code: 0,
      });
      const restored = await startService(restoredDir);
      const pets = await call(restored, BOOT_KEY, '/pets');
      expect(pets.body).toEqual([expect.objectContaining({ name: 'Solo', categoryId: 9 })]);
    });

    it('refuses to restore into a folder that holds anything', async () => {
      const file = join(base, 'any.tar.gz');
      await writeFile(file, 'not read');
      const occupied = join(base, 'occupied');
      await mkdir(occupied);
      await writeFile(join(occupied, 'notes.txt'), 'mine');
      const restore = await script('db-restore', [file, '--dir', occupied], {});
      expect(restore).toMatchObject({ code: 1 });
      expect(restore.stderr).toContain('is not empty');
      expect(existsSync(join(occupied, 'PG_VERSION'))).toBe(false);
    });

    it('explains its usage, and refuses a missing file name', async () => {
      const help = await script('db-backup', ['--help'], {});
      expect(help).toMatchObject({ code: 0 });
      expect(help.stdout).toContain('usage: npm run db:backup -- FILE');
      expect(await script('db-restore', [], {})).toMatchObject({ code: 2 });
    });
  },
);
