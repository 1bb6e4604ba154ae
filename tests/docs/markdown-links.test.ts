import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMarkdownLinks, findMarkdownFiles } from '../../scripts/markdown-links.js';

let root: string;

/** A small repository: a README, one docs page, a folder that is not ours, and a source file. */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'petstore-links-'));
  await mkdir(join(root, 'docs'));
  await mkdir(join(root, 'node_modules', 'some-package'), { recursive: true });
  await writeFile(join(root, 'openapi.json'), '{}\n');
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
