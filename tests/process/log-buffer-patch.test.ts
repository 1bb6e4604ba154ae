import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * patches/sonic-boom+*.patch: the buffered stdout of server/logger.ts measured the UTF-8 length
 * of its whole pending buffer on every line, to keep each write under `maxWrite`. The buffer is
 * a string grown by `+=`, so each measure flattened it first: up to `minLength` bytes copied per
 * line (~2 KB of garbage per request, ~1.2 µs of CPU). The patch measures only when the bound of
 * 3 bytes per UTF-16 unit does not already fit. pino's own copy of sonic-boom is the one tested.
 */
interface SonicBoom {
  write(data: string): boolean;
  flushSync(): void;
}
type SonicBoomClass = new (options: {
  fd: number;
  sync: boolean;
  minLength: number;
  maxWrite?: number;
}) => SonicBoom;

const fromPino = createRequire(createRequire(import.meta.url).resolve('pino'));
const SonicBoom = fromPino('sonic-boom') as SonicBoomClass;
const fs = fromPino('fs') as typeof import('node:fs');

let dir: string;
let fd: number;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sonic-boom-'));
  path = join(dir, 'log');
  fd = openSync(path, 'w');
});
afterEach(() => {
  vi.restoreAllMocks();
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

const lines = (count: number, text: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => `${text(i)}\n`);

describe('sonic-boom, as patched', () => {
  it('writes every line whole and in order, multi-byte text included', () => {
    const stream = new SonicBoom({ fd, sync: true, minLength: 4096 });
    const written = lines(3_000, (i) => `{"n":${i},"name":"Fluffy é ✓ 🐈 ${'x'.repeat(i % 50)}"}`);
    for (const line of written) stream.write(line);
    stream.flushSync();
    expect(readFileSync(path, 'utf8')).toBe(written.join(''));
  });

  // minLength 1000, maxWrite 1024. A multi-byte line is 101 UTF-16 units and 301 bytes: after
  // three lines (903 bytes) the bound says 1210 and the measure 1204, both over maxWrite, so the
  // fourth line starts a buffer. An ASCII line is 200 bytes: from the third line on only the
  // bound is over 1024, the measured 600, 800, 1000 bytes are not, so five lines make one write.
  it.each([
    [
      'splits multi-byte text where bound and measure are both over',
      '€'.repeat(100),
      12,
      [903, 903, 903, 903],
    ],
    ['keeps appending ASCII where only the bound is over', 'a'.repeat(199), 10, [1000, 1000]],
  ])('%s maxWrite', (_name, text, count, expectedWrites) => {
    const writes = vi.spyOn(fs, 'writeSync');
    const stream = new SonicBoom({ fd, sync: true, minLength: 1000, maxWrite: 1024 });
    const written = lines(count, () => text);
    for (const line of written) stream.write(line);
    stream.flushSync();
    expect(readFileSync(path, 'utf8')).toBe(written.join(''));
    expect(writes.mock.calls.map(([, data]) => Buffer.byteLength(data))).toEqual(expectedWrites);
  });

  it('measures each line once, not the pending buffer again', () => {
    const stream = new SonicBoom({ fd, sync: true, minLength: 4096 });
    const measure = vi.spyOn(Buffer, 'byteLength');
    for (const line of lines(30, (i) => `{"n":${i}}`)) stream.write(line);
    // Unpatched: twice per line after the first, once for the line and once for the buffer.
    expect(measure).toHaveBeenCalledTimes(30);
  });
});
