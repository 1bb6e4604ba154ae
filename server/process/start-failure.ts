import { ConfigError } from '../support/errors.js';

/** sysexits.h's EX_CONFIG: the cluster's primary stops replacing a worker that exits with it. */
export const EX_CONFIG = 78;

/**
 * Ends a process that cannot start: 78 (EX_CONFIG) for a configuration the operator must
 * change, with only its message; 1 for anything else, with its stack.
 */
export function exitOnStartFailure(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(EX_CONFIG);
  }
  process.stderr.write(
    `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
