import { execFile } from 'node:child_process';
import { vi } from 'vitest';
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

/**
 * Asks with a revoked key until it is refused (401), and answers how long after `revokedAt`
 * (when `revoke` returned) the last request still accepted had started. A bound of cause and
 * effect, not a speed: a request the service accepted reached it before the key it remembered
 * expired, 1 s at most after the revocation, and it started before it reached it, so a slow
 * machine can only make this smaller. The wait for the refusal is long for the same reason.
 */
export async function acceptedAfterRevokeMs(
  revokedAt: number,
  status: () => Promise<number>,
): Promise<number> {
  let lastAcceptedStart = revokedAt;
  await vi.waitFor(
    async () => {
      const startedAt = performance.now();
      if ((await status()) === 401) return;
      lastAcceptedStart = startedAt;
      throw new Error('the revoked key is still accepted');
    },
    { timeout: 20_000, interval: 10 },
  );
  return lastAcceptedStart - revokedAt;
}
