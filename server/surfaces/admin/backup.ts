import { existsSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { AdminAnswer } from './protocol.js';

/**
 * `npm run db:backup -- FILE`, run by whoever holds the embedded database: the service over
 * its admin socket, or the command itself when no service runs. The copy is written beside
 * FILE and renamed into place, so FILE is either absent or whole; an existing FILE is never
 * overwritten (an earlier backup may be the only good one).
 */
export async function writeBackup(dump: () => Promise<Blob>, file: string): Promise<AdminAnswer> {
  // The socket's peer and the service may not share a working directory.
  if (!isAbsolute(file)) return { code: 2, stdout: '', stderr: `Not an absolute path: ${file}\n` };
  const partial = `${file}.partial`;
  if (existsSync(file))
    return { code: 1, stdout: '', stderr: `${file} exists; choose a new file.\n` };
  // 'wx' refuses a partial file another backup is writing.
  const handle = await open(partial, 'wx', 0o600);
  try {
    const archive = Buffer.from(await (await dump()).arrayBuffer());
    await handle.writeFile(archive);
    await handle.sync();
    await handle.close();
    await rename(partial, file);
    return {
      code: 0,
      stdout: `Backed up the embedded database to ${file} (${archive.length} bytes).\n`,
      stderr: '',
    };
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(partial).catch(() => undefined);
    throw error;
  }
}
