import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkMarkdownLinks,
  checkPathMentions,
  findMarkdownFiles,
} from '../../scripts/markdown-links.js';

let root: string;

/** A small repository: a README, one docs page, a folder that is not ours, and a source file. */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'petstore-links-'));
  await mkdir(join(root, 'docs'));
  await mkdir(join(root, 'node_modules', 'some-package'), { recursive: true });
  await writeFile(join(root, 'openapi.json'), '{}\n');
  await mkdir(join(root, 'server', 'http'), { recursive: true });
  await writeFile(join(root, 'server', 'http', 'cors.ts'), '\n');
  await mkdir(join(root, 'tests'));
  await mkdir(join(root, 'dist'));
  await writeFile(join(root, 'node_modules', 'some-package', 'README.md'), '[x](../../../up.md)\n');
  await writeFile(
    join(root, 'docs', 'guide.md'),
    '# Guide\n\n## Rate limits\n\n## Rate limits\n\nBack to the [README](../README.md#quick-start).\n',
  );
});
afterAll(() => rm(root, { recursive: true, force: true }));

const check = async (readme: string) => {
  await writeFile(join(root, 'README.md'), readme);
  return checkMarkdownLinks(root).map(({ file, line, target }) => ({ file, line, target }));
};

describe('the Markdown link check (npm run lint:links)', () => {
  it('finds our Markdown files and not those of installed packages', async () => {
    await check('## Quick start\n');
    expect(findMarkdownFiles(root)).toEqual(['README.md', 'docs/guide.md']);
  });

  it('accepts links to files, folders and headings that exist, and leaves URLs alone', async () => {
    const readme = [
      '# Pets',
      '## Quick start',
      'See [the guide](docs/guide.md), [limits](docs/guide.md#rate-limits-1), [the',
      'document](./openapi.json "title"), [docs](docs/), [here](#quick-start),',
      '![a picture](<docs/guide.md>), <https://example.com/x> and [web](https://example.com).',
      '',
      '[ref]: docs/guide.md',
    ].join('\n');
    expect(await check(readme)).toEqual([]);
  });

  it('refuses links that leave the repository, miss a file or a heading, or are absolute', async () => {
    const readme = [
      '## Quick start',
      'The contract is in [CONTRACT.md](../shared/CONTRACT.md).',
      '[gone](docs/missing.md) [no heading](docs/guide.md#nowhere) [root](/openapi.json)',
      '[here](#no-such-heading)',
      '[ref]: ../outside.md',
    ].join('\n');
    expect(await check(readme)).toEqual([
      { file: 'README.md', line: 2, target: '../shared/CONTRACT.md' },
      { file: 'README.md', line: 3, target: 'docs/missing.md' },
      { file: 'README.md', line: 3, target: 'docs/guide.md#nowhere' },
      { file: 'README.md', line: 3, target: '/openapi.json' },
      { file: 'README.md', line: 4, target: '#no-such-heading' },
      { file: 'README.md', line: 5, target: '../outside.md' },
    ]);
  });

  it('does not read links inside code', async () => {
    const readme = [
      '## Quick start',
      '```md',
      '[x](../shared/a.md)',
      '```',
      'Not `[y](../b.md)` either.',
    ];
    expect(await check(readme.join('\n'))).toEqual([]);
  });
});

const mentions = async (readme: string) => {
  await writeFile(join(root, 'README.md'), readme);
  return checkPathMentions(root).map(({ file, line, target }) => ({ file, line, target }));
};

describe('the repository path check (npm run lint:links)', () => {
  it('accepts paths that exist, in code spans and prose, with placeholders and globs', async () => {
    const readme = [
      'CORS is in `server/http/cors.ts`, under server/http/ and `server/http`.',
      'Each file in `server/<layer>/cors.ts`, server/*/cors.ts; the guide, docs/guide.md.',
      '```sh',
      'npx tsx server/http/cors.ts',
      '```',
    ].join('\n');
    expect(await mentions(readme)).toEqual([]);
  });

  it('refuses a path that does not exist, wherever it is named', async () => {
    const readme = [
      'It moved from `server/config.ts` (server/http/gone.ts).',
      'See `docs/missing.md`, docs/old/ and `server/*/nothing.ts`.',
      '```sh',
      'npx vitest run tests/removed.test.ts',
      '```',
    ].join('\n');
    expect(await mentions(readme)).toEqual([
      { file: 'README.md', line: 1, target: 'server/config.ts' },
      { file: 'README.md', line: 1, target: 'server/http/gone.ts' },
      { file: 'README.md', line: 2, target: 'docs/missing.md' },
      { file: 'README.md', line: 2, target: 'docs/old/' },
      { file: 'README.md', line: 2, target: 'server/*/nothing.ts' },
      { file: 'README.md', line: 4, target: 'tests/removed.test.ts' },
    ]);
  });

  it('leaves alone what is not a repository path named from the root', async () => {
    const readme = [
      'A client/server split; `git show 794af53^:server/procedure-call.ts` for history.',
      'https://example.com/server/x.ts, ../server/y.ts, @scope/server/z.ts, `dist/client/a.d.ts`.',
      'Links resolve from their file: [cors](server/http/cors.ts), [z](<server/z.ts>).',
      '',
      '[ref]: server/ref.ts',
    ].join('\n');
    expect(await mentions(readme)).toEqual([]);
  });
});
