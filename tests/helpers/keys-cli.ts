import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Database } from '../../db/client.js';
import { runKeysCliCollected, type CliRun } from '../../server/surfaces/admin/keys-commands.js';

export type { CliRun };

/** The keys command line, run in-process on a database the test already has open. */
export function runKeys(db: Database, ...argv: string[]): Promise<CliRun> {
  return runKeysCliCollected(argv, (use) => use(db));
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `npm run keys -- ...` as an operator runs it: a separate process, configured by its environment. */
export function keysProcess(
  args: string[],
  env: { DATABASE_URL?: string; PGLITE_DIR?: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/keys.ts', ...args],
      { cwd: ROOT, env: childEnv, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}
