import { basename, dirname, join, normalize } from 'node:path';
import type { Socket } from 'node:net';
import { z } from 'zod';

/**
 * The keys and backup command lines talk to the service holding an embedded database's data
 * folder over a Unix socket beside that folder: one JSON line in (the command line), one JSON line out (what
 * the command printed and its exit code), then the connection closes. Newline-delimited JSON
 * rather than HTTP: one exchange per connection needs no methods, paths, headers or
 * keep-alive, and a smaller parser is less to get wrong on a socket that can issue keys.
 */
export const ADMIN_SOCKET_SUFFIX = '.admin.sock';

/** Linux keeps 107 bytes of a socket's path (108 with the NUL); node cuts a longer one short. */
const MAX_SOCKET_PATH_BYTES = 107;

/**
 * The socket of a data folder (`.data/pglite.admin.sock` for `.data/pglite`), or undefined for
 * a database with no folder or too long a path. Beside the folder, not in it: PGlite's copy of
 * its folder (npm run db:backup) fails on any file that is neither a file nor a folder.
 */
export function adminSocketPath(dataDir: string): string | undefined {
  if (dataDir.includes('://')) return undefined;
  const folder = normalize(dataDir).replace(/\/+$/, '');
  const path = join(dirname(folder), `${basename(folder)}${ADMIN_SOCKET_SUFFIX}`);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES ? path : undefined;
}

/** The only commands the socket runs; help and usage errors never leave the command line. */
export const ADMIN_COMMANDS: readonly string[] = ['create', 'list', 'revoke', 'backup'];

export const adminRequest = z.strictObject({
  argv: z.array(z.string().max(1_000)).min(1).max(20),
});

export const adminAnswer = z.strictObject({
  code: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  stdout: z.string(),
  stderr: z.string(),
});

export type AdminAnswer = z.infer<typeof adminAnswer>;

/** A request or an answer is a short line; anything longer is not one of ours. */
const MAX_LINE_BYTES = 64 * 1024;

/**
 * While a command runs, the service sends an empty line now and then: the command line waits
 * for as long as a long command (a backup of a large folder) works, and gives up on a service
 * that stopped answering at all.
 */
export const HEARTBEAT_MS = 5_000;

/** The first non-empty line the peer sends, without its newline; empty lines are heartbeats. */
export function readLine(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (error: Error | undefined, line?: string) => {
      socket.off('data', onData).off('end', onEnd).off('error', finish).off('close', onEnd);
      if (error) reject(error);
      else resolve(line ?? '');
    };
    const onData = (chunk: Buffer) => {
      let rest = chunk;
      for (let newline = rest.indexOf(0x0a); newline !== -1; newline = rest.indexOf(0x0a)) {
        if (length + newline > 0) {
          chunks.push(rest.subarray(0, newline));
          finish(undefined, Buffer.concat(chunks).toString('utf8'));
          return;
        }
        rest = rest.subarray(newline + 1);
      }
      chunks.push(rest);
      length += rest.length;
      if (length > MAX_LINE_BYTES) finish(new Error('line too long'));
    };
    const onEnd = () => {
      finish(new Error('the connection closed before a whole line arrived'));
    };
    socket.on('data', onData).on('end', onEnd).on('error', finish).on('close', onEnd);
  });
}
