import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCommentPaths, commentsOf, findCodeFiles } from '../../scripts/comment-paths.js';

let root: string;

/** A small repository: one source file, one generated file, and the folders they name. */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'petstore-comments-'));
  await mkdir(join(root, 'server', 'support'), { recursive: true });
  await mkdir(join(root, 'drizzle'));
  await writeFile(join(root, 'server', 'support', 'logger.ts'), '\n');
  await writeFile(join(root, 'server', 'main.ts'), '\n');
  await writeFile(join(root, 'drizzle', 'meta.ts'), '// server/gone.ts\n');
});
afterAll(() => rm(root, { recursive: true, force: true }));

const check = async (source: string) => {
  await writeFile(join(root, 'server', 'main.ts'), source);
  return checkCommentPaths(root).map(({ file, line, target }) => `${file}:${line} ${target}`);
};

describe('the path check of code comments (npm run lint:links)', () => {
  it('reads our sources, not generated ones', () => {
    expect(findCodeFiles(root)).toEqual(['server/main.ts', 'server/support/logger.ts']);
  });

  it('passes paths that exist, bare folders included', async () => {
    expect(await check('/** server/support/logger.ts, in server/support. */\n')).toEqual([]);
  });

  it('names the line of a path that is gone, in either kind of comment', async () => {
    const source = [
      'const a = 1; // see server/logger.ts',
      '/**',
      ' * and server/openapi.',
      ' */',
      'export const b = a;',
    ].join('\n');
    expect(await check(source)).toEqual([
      'server/main.ts:1 server/logger.ts',
      'server/main.ts:3 server/openapi',
    ]);
  });

  it('does not take strings, templates or regular expressions for comments', () => {
    const source = [
      "const url = 'http://x/server/gone.ts';",
      'const path = `// server/gone.ts ${url}`;',
      'const pattern = /\\/\\/ server\\/gone/;',
      'export { path, pattern };',
    ].join('\n');
    expect(commentsOf('x.ts', source)).toEqual([]);
  });
});
