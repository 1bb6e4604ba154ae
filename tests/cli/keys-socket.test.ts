import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { adminSocketPath } from '../../server/surfaces/admin/protocol.js';
import { claimAdminSocket } from '../../server/surfaces/admin/socket.js';
import { spawnServer, type ChildServer, type LogLine } from '../helpers/child-server.js';
import { describeOnEmbedded } from '../helpers/database.js';
import { acceptedAfterRevokeMs, keysProcess } from '../helpers/keys-cli.js';

interface Issued {
  id: string;
  key: string;
}

let dataDir: string;
let socketPath: string;
const servers: ChildServer[] = [];

// One data folder for the file: a fresh one costs PGlite's initdb on every start.
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'petstore-keys-socket-'));
  const path = adminSocketPath(dataDir);
  if (!path) throw new Error(`${dataDir} is too long a path for the admin socket`);
  socketPath = path;
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.kill();
});

afterAll(() => rm(dataDir, { recursive: true, force: true }));

async function startService(startedWhen?: (line: LogLine) => boolean): Promise<ChildServer> {
  const env = { PGLITE_DIR: dataDir, API_KEYS: 'socket-test-key' };
  const server = await spawnServer(env, { startedWhen });
  servers.push(server);
  return server;
}

const keys = (...args: string[]) => keysProcess(args, { PGLITE_DIR: dataDir });

async function create(name: string): Promise<Issued> {
  const run = await keys('create', '--name', name, '--json');
  expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout) as Issued;
}

const status = async (server: ChildServer, key: string) =>
  (await fetch(`${server.origin}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status;

// The socket exists only for the embedded database; these tests start their own service on a
// data folder of their own, whichever project runs them, so they run in one.
describeOnEmbedded(
  'npm run keys while the service runs on the embedded database',
  { timeout: 120_000 },
  () => {
    it('creates, lists and revokes in the service; a revoked key is refused within 1 s', async () => {
      const server = await startService();
      const socket = statSync(socketPath);
      expect(socket.isSocket()).toBe(true);
      expect(socket.mode & 0o777).toBe(0o600);

      const issued = await create('live');
      // Used first, so the service holds it in its cache when it is revoked.
      expect(await status(server, issued.key)).toBe(200);
      const listed = await keys('list', '--json');
      expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ id: issued.id }));

      const revoked = await keys('revoke', issued.id);
      expect(revoked).toMatchObject({ code: 0, stderr: '' });
      const revokedAt = performance.now();
      const accepted = await acceptedAfterRevokeMs(revokedAt, () => status(server, issued.key));
      expect(accepted).toBeLessThanOrEqual(1_000);

      expect(await keys('revoke', issued.id)).toMatchObject({ code: 1 });
      const logged = await server.waitForLog((line) => line.command === 'revoke');
      expect(logged).toMatchObject({ msg: 'keys command over the admin socket', exitCode: 0 });
      // The key went to the command line's user only.
      expect(server.output()).not.toContain(issued.key);
    });

    it('removes the socket on shutdown; then the command opens the data folder', async () => {
      const server = await startService();
      await server.stop();
      expect(existsSync(socketPath)).toBe(false);
      const issued = await create('after stop');
      expect(issued.id).toMatch(/^\w{8}$/);
    });

    it('survives a socket file left by kill -9: the command falls back, the service starts', async () => {
      await (await startService()).kill();
      expect(existsSync(socketPath)).toBe(true);
      // A refused connection falls back at once; a command that hung instead fails the test.
      await create('after crash');

      await (await startService()).kill();
      expect(existsSync(socketPath)).toBe(true);
      const server = await startService();
      const issued = await create('after restart');
      expect(await status(server, issued.key)).toBe(200);
    });

    it('makes a starting service wait while another process holds the data folder', async () => {
      // What a keys command on the folder holds meanwhile: the socket, answering "busy".
      const holder = await claimAdminSocket(socketPath, () =>
        Promise.resolve({ code: 1, stdout: '', stderr: 'busy\n' }),
      );
      expect((await keys('list')).stderr).toBe('busy\n');
      // Released only once the service says it waits: then it must take the folder and listen.
      const waiting = 'the data folder is in use by another process; waiting';
      const server = await startService((line) => line.msg === waiting);
      expect(server.logs.some((line) => line.msg === 'listening')).toBe(false);
      await holder.close();
      await server.waitForLog((line) => line.msg === 'listening');
      expect(await status(server, 'socket-test-key')).toBe(200);
      expect((await keys('list')).code).toBe(0);
    });
  },
);
