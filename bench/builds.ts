import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_ROOT } from './service.js';

/** bench/REFERENCE: one line, the commit the guard compares with, then why it is that one. */
export function referenceCommit(): string {
  const line = readFileSync(new URL('./REFERENCE', import.meta.url), 'utf8').trim();
  const commit = line.split(/\s+/)[0] ?? '';
  if (!/^[0-9a-f]{7,40}$/.test(commit)) throw new Error(`bench/REFERENCE names no commit: ${line}`);
  return commit;
}

/** The node binary of a release line (`24`), from the npm registry's `node` package. */
export function nodeOfLine(line: string): string {
  if (!/^\d+$/.test(line)) throw new Error(`--node takes release lines such as 24,22: ${line}`);
  return execFileSync('npx', ['--yes', '-p', `node@${line}`, 'node', '-p', 'process.execPath'], {
    encoding: 'utf8',
  }).trim();
}

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });

/**
 * The service at `commit`, installed from its own lockfile and built in a temporary git
 * worktree, as its users would. Older commits build only on `npm run build`, newer ones on
 * install too.
 */
export function buildCommit(commit: string): { root: string; remove(): void } {
  const root = join(mkdtempSync(join(tmpdir(), 'petstore-reference-')), 'service');
  run('git', ['worktree', 'add', '--detach', root, commit], SERVICE_ROOT);
  const remove = () => {
    run('git', ['worktree', 'remove', '--force', root], SERVICE_ROOT);
  };
  try {
    run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], root);
    if (!existsSync(join(root, 'dist/server/main.js'))) run('npm', ['run', 'build'], root);
  } catch (error) {
    remove();
    throw error;
  }
  return { root, remove };
}
