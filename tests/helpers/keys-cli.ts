import type { Database } from '../../db/client.js';
import { runKeysCliCollected, type CliRun } from '../../scripts/keys/cli.js';

export type { CliRun };

/** The keys command line, run in-process on a database the test already has open. */
export function runKeys(db: Database, ...argv: string[]): Promise<CliRun> {
  return runKeysCliCollected(argv, (use) => use(db));
}
