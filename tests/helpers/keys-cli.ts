import type { Database } from '../../db/client.js';
import { runKeysCli, type ExitCode } from '../../scripts/keys/cli.js';

export interface CliRun {
  code: ExitCode;
  stdout: string;
  stderr: string;
}

/** The keys command line, run in-process on a database the test already has open. */
export async function runKeys(db: Database, ...argv: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runKeysCli(argv, {
    withDatabase: (use) => use(db),
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}
