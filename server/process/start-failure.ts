import { ConfigError } from '../support/errors.js';

/**
 * Ends a process that cannot start: 78 (EX_CONFIG) for a configuration the operator must
 * change, with only its message; 1 for anything else, with its stack.
 */
export function exitOnStartFailure(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  process.stderr.write(
    `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
