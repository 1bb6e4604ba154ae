import { lstat, mkdir, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { connect, createServer, type Socket } from 'node:net';
import { adminAnswer, adminRequest, HEARTBEAT_MS, readLine, type AdminAnswer } from './protocol.js';

/** Another live process listens on the socket: it holds the data folder. */
export class AdminSocketInUse extends Error {
  override name = 'AdminSocketInUse';
}

/** Runs one command line that arrived on the socket; `signal` aborts when its peer is gone. */
export type AdminHandler = (argv: string[], signal: AbortSignal) => Promise<AdminAnswer>;

export interface AdminSocket {
  readonly path: string;
  /** Stops listening (the socket file goes with it) once running commands have answered. */
  close(): Promise<void>;
}

/**
 * A peer that sends no command, or stops reading the answer, is dropped after this. While its
 * command runs there is no limit: a backup of a large folder takes what it takes, and the
 * heartbeats tell the peer it is working.
 */
const IDLE_MS = 10_000;

type Probe = 'live' | 'stale' | 'absent';

/** Whether someone listens on `path`: on a Unix socket, connect answers at once either way. */
function probe(path: string): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve('live');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') resolve('absent');
      // The file outlived its process (kill -9, a power cut).
      else if (error.code === 'ECONNREFUSED') resolve('stale');
      else reject(error);
    });
  });
}

async function answer(socket: Socket, handler: AdminHandler): Promise<void> {
  let reply: AdminAnswer;
  const gone = new AbortController();
  socket.once('close', () => {
    gone.abort(new Error('the command line that asked is gone'));
  });
  let heartbeat: NodeJS.Timeout | undefined;
  try {
    const request = adminRequest.safeParse(JSON.parse(await readLine(socket)));
    socket.setTimeout(0);
    heartbeat = setInterval(() => socket.write('\n'), HEARTBEAT_MS);
    reply = request.success
      ? await handler(request.data.argv, gone.signal)
      : { code: 2, stdout: '', stderr: 'Not a keys command line.\n' };
  } catch (error) {
    if (socket.destroyed) return;
    reply = {
      code: 1,
      stdout: '',
      stderr: `Failed: ${error instanceof Error ? error.message : String(error)}\n`,
    };
  } finally {
    clearInterval(heartbeat);
  }
  socket.setTimeout(IDLE_MS);
  socket.end(`${JSON.stringify(reply)}\n`);
}

/**
 * Listens on `path` for whoever holds the data folder, and so claims it: a second claimant
 * finds the socket live and gets AdminSocketInUse. A socket file left by a process that died
 * is removed first. The file is created with mode 0600 (only this user may connect): the umask
 * is narrowed around listen(), which creates the file before it returns, so there is no moment
 * at which another user could connect.
 */
export async function claimAdminSocket(path: string, handler: AdminHandler): Promise<AdminSocket> {
  // Claimed before the database creates its folder on a first start.
  await mkdir(dirname(path), { recursive: true });
  const found = await probe(path);
  if (found === 'live') throw new AdminSocketInUse(`${path} answers`);
  if (found === 'stale') {
    if (!(await lstat(path)).isSocket()) throw new Error(`${path} exists and is not a socket`);
    await unlink(path);
  }
  const server = createServer((socket) => {
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    socket.on('error', () => undefined);
    void answer(socket, handler);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new AdminSocketInUse(`${path} is taken`) : error);
    });
    const umask = process.umask(0o177);
    try {
      server.listen(path, resolve);
    } finally {
      process.umask(umask);
    }
  });
  return {
    path,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

/**
 * Runs a command line on the holder of `path`, or gives undefined when nothing listens there
 * (no file, or one left by a dead process). A holder that sends nothing for `timeoutMs`, not
 * even a heartbeat, fails the call instead of hanging the command line.
 */
export function askAdminSocket(
  path: string,
  argv: readonly string[],
  timeoutMs: number,
): Promise<AdminAnswer | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`the service did not answer on ${path} within ${timeoutMs / 1000} s`));
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') resolve(undefined);
      else reject(new Error(`could not reach the service on ${path}: ${error.message}`));
    });
    socket.once('connect', () => {
      socket.write(`${JSON.stringify({ argv })}\n`);
      readLine(socket).then(
        (line) => {
          socket.destroy();
          resolve(adminAnswer.parse(JSON.parse(line)));
        },
        (error: unknown) => {
          socket.destroy();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  });
}
