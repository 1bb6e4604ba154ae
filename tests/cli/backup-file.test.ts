import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeBackup } from '../../server/surfaces/admin/backup.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-backup-file-'));
});

afterEach(() => rm(dir, { recursive: true, force: true }));

/** A copy that writes `chunks` pieces, one every 20 ms, and stops when `signal` aborts. */
function slowCopy(chunks: number) {
  return async (out: Writable, signal?: AbortSignal) => {
    for (let i = 0; i < chunks; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      signal?.throwIfAborted();
      out.write(`piece ${i}\n`);
    }
    await new Promise<void>((resolve) => out.end(resolve));
  };
}

describe('writeBackup', () => {
  it('puts the file in place only once whole, and answers 0 with its size', async () => {
    const file = join(dir, 'copy.tar.gz');
    const answer = await writeBackup(slowCopy(5), file);
    expect(answer.code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(
      Array.from({ length: 5 }, (_, i) => `piece ${i}\n`).join(''),
    );
    expect(answer.stdout).toContain('(40 bytes)');
    expect(existsSync(`${file}.partial`)).toBe(false);
  });

  it('leaves no file when the command that asked is gone before the copy is whole', async () => {
    const file = join(dir, 'abandoned.tar.gz');
    const gone = new AbortController();
    setTimeout(() => {
      gone.abort(new Error('gone'));
    }, 50);
    await expect(writeBackup(slowCopy(20), file, gone.signal)).rejects.toThrow('gone');
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.partial`)).toBe(false);
  });
});
