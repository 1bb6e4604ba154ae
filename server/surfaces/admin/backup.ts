import { createWriteStream, existsSync } from 'node:fs';
import { open, rename, stat, unlink } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { Writable } from 'node:stream';
import type { AdminAnswer } from './protocol.js';

/** Writes the copy to `out`; abandons it when `signal` aborts. */
export type Backup = (out: Writable, signal?: AbortSignal) => Promise<void>;

/**
 * `npm run db:backup -- FILE`, run by whoever holds the embedded database: the service over
 * its admin socket, or the command itself when no service runs. The copy is written beside
 * FILE and renamed into place once whole and synced, so FILE is either absent or whole; an
 * existing FILE is never overwritten (an earlier backup may be the only good one). When
 * `signal` aborts (the command that asked is gone, and would report a failure), the partial
 * copy is removed and FILE never appears.
 */
export async function writeBackup(
  backup: Backup,
  file: string,
  signal?: AbortSignal,
): Promise<AdminAnswer> {
  // The socket's peer and the service may not share a working directory.
  if (!isAbsolute(file)) return { code: 2, stdout: '', stderr: `Not an absolute path: ${file}\n` };
  const partial = `${file}.partial`;
  if (existsSync(file))
    return { code: 1, stdout: '', stderr: `${file} exists; choose a new file.\n` };
  // 'wx' refuses a partial file another backup is writing.
  const out = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
  try {
    await backup(out, signal);
    const written = await open(partial, 'r');
    await written.sync().finally(() => written.close());
    signal?.throwIfAborted();
    await rename(partial, file);
    const { size } = await stat(file);
    return {
      code: 0,
      stdout: `Backed up the embedded database to ${file} (${size} bytes).\n`,
      stderr: '',
    };
  } catch (error) {
    out.destroy();
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      await unlink(partial).catch(() => undefined);
    throw error;
  }
}
