import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN_SOCKET_SUFFIX,
  adminSocketPath,
  readLine,
  type AdminAnswer,
} from '../../server/surfaces/admin/protocol.js';
import {
  AdminSocketInUse,
  askAdminSocket,
  claimAdminSocket,
  type AdminHandler,
  type AdminSocket,
} from '../../server/surfaces/admin/socket.js';

let dir: string;
let path: string;
const held: AdminSocket[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-admin-'));
  path = join(dir, `pglite${ADMIN_SOCKET_SUFFIX}`);
});

afterEach(async () => {
  for (const socket of held.splice(0)) await socket.close();
  await rm(dir, { recursive: true, force: true });
});

const echo = (argv: string[]) =>
  Promise.resolve({ code: 0 as const, stdout: argv.join(' '), stderr: '' });

async function claim(handler: AdminHandler = echo): Promise<AdminSocket> {
  const socket = await claimAdminSocket(path, handler);
  held.push(socket);
  return socket;
}

describe('the admin socket', () => {
  it('is a socket only its user may open (mode 0600), beside the data folder', async () => {
    await claim();
    const file = await stat(path);
    expect(file.isSocket()).toBe(true);
    expect(file.mode & 0o777).toBe(0o600);
    expect(adminSocketPath(join(dir, 'pglite'))).toBe(path);
    expect(adminSocketPath(`${join(dir, 'pglite')}/`)).toBe(path);
  });

  it('answers a command line with what the handler returns', async () => {
    await claim();
    await expect(askAdminSocket(path, ['list', '--json'], 5_000)).resolves.toEqual({
      code: 0,
      stdout: 'list --json',
      stderr: '',
    });
  });

  it('refuses a line that is not a command line, with exit code 2', async () => {
    await claim();
    const socket = connect(path);
    socket.end('{"argv":"list"}\n');
    const answer = JSON.parse(await readLine(socket)) as { code: number; stderr: string };
    expect(answer).toEqual({ code: 2, stdout: '', stderr: 'Not a keys command line.\n' });
  });

  it('can be claimed once: a second claimant finds it in use', async () => {
    await claim();
    await expect(claimAdminSocket(path, echo)).rejects.toBeInstanceOf(AdminSocketInUse);
  });

  it('is gone when closed, and then nobody answers', async () => {
    const socket = await claim();
    held.pop();
    await socket.close();
    expect(existsSync(path)).toBe(false);
    await expect(askAdminSocket(path, ['list'], 5_000)).resolves.toBeUndefined();
  });

  it('treats a socket file whose process died as absent, and claims it again', async () => {
    // A process that listens there and is killed with SIGKILL leaves its file behind.
    const listener = spawn(
      process.execPath,
      [
        '-e',
        `require('node:net').createServer().listen(process.argv[1], () => console.log('up'))`,
        path,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => listener.stdout.once('data', resolve));
    listener.kill('SIGKILL');
    await new Promise((resolve) => listener.once('exit', resolve));
    expect(existsSync(path)).toBe(true);

    await expect(askAdminSocket(path, ['list'], 5_000)).resolves.toBeUndefined();
    await claim();
    await expect(askAdminSocket(path, ['list'], 5_000)).resolves.toMatchObject({ code: 0 });
  });

  it('leaves alone a file there that is not a socket', async () => {
    await writeFile(path, 'not a socket');
    await expect(claimAdminSocket(path, echo)).rejects.toThrow(/is not a socket/);
  });

  it('fails, instead of hanging, when the holder never answers', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(path, resolve));
    try {
      // A hang would run into the test's own timeout; a duration asserted here is a loaded
      // machine's to miss.
      await expect(askAdminSocket(path, ['list'], 300)).rejects.toThrow(/did not answer/);
    } finally {
      silent.close();
    }
  });

  it('waits for a command that works longer than the idle limit, told so by heartbeats', async () => {
    // Past the socket's 10 s idle limit; the command line gives up after 7 s of silence.
    const slow = () =>
      new Promise<AdminAnswer>((resolve) => {
        setTimeout(() => {
          resolve({ code: 0, stdout: 'done', stderr: '' });
        }, 12_000);
      });
    await claim(slow);
    await expect(askAdminSocket(path, ['backup', '/x'], 7_000)).resolves.toMatchObject({
      code: 0,
      stdout: 'done',
    });
  }, 20_000);

  it('is not offered for a database without a folder, or a path too long for a socket', () => {
    expect(adminSocketPath('memory://')).toBeUndefined();
    expect(adminSocketPath(`/tmp/${'x'.repeat(100)}`)).toBeUndefined();
  });
});
