import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * patches/postgres+3.4.9.patch fixes the queue postgres.js keeps its connections and waiting
 * queries in. The upstream defect (porsager/postgres 3.4.9, src/queue.js): `shift()` only clears
 * a slot and resets the array when the queue empties, and `remove()` searches from index 0, so a
 * queue that never empties (busy connections under steady load) grows by one slot per query and
 * each move of a connection searches all of them (patches/README.md has the measurement). The
 * driver does not export the queue, so it is loaded from the installed file. The same patch
 * makes closed connections refuse queries instead of crashing the process
 * (tests/db/postgres-closed-connection.test.ts).
 */
const PATCHED_VERSION = '3.4.9';
interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}
type QueueFactory = <T>(initial?: T[]) => Queue<T>;

/** What `import 'postgres'` loads: the package's ES module, src/index.js. */
const entry = fileURLToPath(import.meta.resolve('postgres'));
const packageRoot = join(dirname(entry), '..');

async function loadQueue(): Promise<QueueFactory> {
  const module = (await import(pathToFileURL(join(packageRoot, 'src', 'queue.js')).href)) as {
    default: QueueFactory;
  };
  return module.default;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the postgres.js patch', () => {
  it(`applies to the installed version (${PATCHED_VERSION}); on another, check upstream and re-make the patch`, () => {
    const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(manifest.version).toBe(PATCHED_VERSION);
  });

  it("is made for the copy Node loads: `import 'postgres'` resolves to src/", () => {
    expect(entry).toBe(join(packageRoot, 'src', 'index.js'));
  });

  it('is applied: every line it adds is in the installed files', () => {
    const patch = readFileSync(
      join(packageRoot, '..', '..', 'patches', `postgres+${PATCHED_VERSION}.patch`),
      'utf8',
    );
    // [file, its diff, file, its diff, ...]: the path each `diff --git` line names, then its hunks.
    const parts = patch.split(/^diff --git a\/node_modules\/postgres\/(\S+) .*$/m).slice(1);
    const patched = parts.filter((_, index) => index % 2 === 0);
    expect(patched.sort()).toEqual(['src/connection.js', 'src/index.js', 'src/queue.js']);
    for (let i = 0; i < parts.length; i += 2) {
      const installed = readFileSync(join(packageRoot, parts[i] ?? ''), 'utf8');
      const added = (parts[i + 1] ?? '').split('\n').filter((line) => /^\+(?!\+\+)/.test(line));
      expect(added.length).toBeGreaterThan(0);
      for (const line of added) expect(installed, parts[i]).toContain(line.slice(1));
    }
  });
});

describe('postgres.js src/queue.js, as patched', () => {
  it('is first in, first out, and removes from anywhere', async () => {
    const queue = (await loadQueue())(['a', 'b']);
    queue.push('c');
    queue.push('d');
    expect(queue.shift()).toBe('a');
    expect(queue.remove('c')).toBe('c');
    expect(queue.remove('a')).toBeNull();
    expect(queue.length).toBe(2);
    expect([queue.shift(), queue.shift(), queue.length]).toEqual(['b', 'd', 0]);
  });

  it('keeps order across the compaction of a queue that never empties', async () => {
    const queue = (await loadQueue())<number>();
    const taken: number[] = [];
    for (let i = 0; i < 5; i++) queue.push(i);
    for (let i = 5; i < 5_000; i++) {
      taken.push(queue.shift() ?? -1);
      queue.push(i);
    }
    while (queue.length > 0) taken.push(queue.shift() ?? -1);
    expect(taken).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
  });

  it('searches only what is queued, however many queries went through it', async () => {
    const queue = (await loadQueue())<object>();
    const standing = Array.from({ length: 3 }, () => ({}));
    for (const connection of standing) queue.push(connection);
    // A busy connection is shifted to take a query and pushed back, 100,000 times.
    for (let i = 0; i < 100_000; i++) queue.push(queue.shift() ?? {});

    const searched: number[] = [];
    const indexOf = Array.prototype.indexOf;
    vi.spyOn(Array.prototype, 'indexOf').mockImplementation(function (
      this: unknown[],
      ...args: Parameters<typeof indexOf>
    ) {
      searched.push(this.length - (args[1] ?? 0));
      return indexOf.apply(this, args);
    });
    const removed = queue.remove(standing[1] ?? {});
    vi.restoreAllMocks();

    expect(removed).toBe(standing[1]);
    expect(searched).toHaveLength(1);
    expect(searched[0]).toBe(standing.length);
    expect(queue.length).toBe(2);
  });
});
