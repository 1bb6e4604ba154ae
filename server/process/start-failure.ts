import pino from 'pino';
import { summarizeError } from '../support/error-summary.js';
import { ConfigError } from '../support/errors.js';
import { createLogger } from '../support/logger.js';

/** sysexits.h's EX_CONFIG: the cluster's primary stops replacing a worker that exits with it. */
export const EX_CONFIG = 78;

/**
 * Ends a process that cannot start: 78 (EX_CONFIG) for a configuration the operator must
 * change, with only its message, written for a person; 1 for anything else, with one JSON log
 * line that log pipelines read like every other: the cause's kind and code (`EADDRINUSE`, a
 * PostgreSQL SQLSTATE) and its stack frames, never its message, which may hold what the logs
 * must not (as every error the service logs).
 */
export function exitOnStartFailure(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(EX_CONFIG);
  }
  // Synchronous, so the line is out before the process exits.
  const logger = createLogger('fatal', pino.destination({ dest: 1, sync: true }));
  logger.fatal({ err: summarizeError(error, { stack: true }) }, 'failed to start');
  process.exit(1);
}
