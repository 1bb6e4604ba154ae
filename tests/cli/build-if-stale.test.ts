import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/build-if-stale.mjs', import.meta.url));

/**
 * `npm start` builds only when the build is missing or older than its sources: a project whose
 * `npm run build` leaves a mark, so that each run shows whether it built.
 */
let project: string;
const mark = () => join(project, 'built-by-test');

beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), 'petstore-stale-'));
  mkdirSync(join(project, 'server'));
  writeFileSync(join(project, 'server', 'main.ts'), '');
  const build =
    "require('node:fs').writeFileSync('built-by-test',''); require('node:fs').mkdirSync('dist',{recursive:true}); require('node:fs').writeFileSync('dist/.built','')";
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'stale-test', scripts: { build: `node -e "${build}"` } }),
  );
});
afterEach(() => {
  rmSync(project, { recursive: true, force: true });
});

function start(): boolean {
  rmSync(mark(), { force: true });
  const run = spawnSync(process.execPath, [SCRIPT], { cwd: project, encoding: 'utf8' });
  expect(run.status).toBe(0);
  return existsSync(mark());
}

/** Moves a file's modification time `seconds` into the past (or the future). */
function age(path: string, seconds: number) {
  const when = new Date(Date.now() - seconds * 1000);
  utimesSync(path, when, when);
}

describe('scripts/build-if-stale.mjs (npm start’s first step)', () => {
  it('builds when there is no build yet', () => {
    expect(start()).toBe(true);
  });

  it('starts without building when the build is newer than every source', () => {
    expect(start()).toBe(true);
    age(join(project, 'server', 'main.ts'), 60);
    age(join(project, 'server'), 60);
    age(join(project, 'package.json'), 60);
    expect(start()).toBe(false);
  });

  it('builds again once a source changed, or a source was removed', () => {
    expect(start()).toBe(true);
    age(join(project, 'dist', '.built'), 60);
    writeFileSync(join(project, 'server', 'main.ts'), 'changed');
    expect(start()).toBe(true);
    age(join(project, 'dist', '.built'), 60);
    rmSync(join(project, 'server', 'main.ts'));
    expect(start()).toBe(true);
  });
});
