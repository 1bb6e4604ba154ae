import pino from 'pino';
import { summarizeError } from '../support/error-summary.js';
import { ConfigError, ListenError } from '../support/errors.js';
import { createLogger } from '../support/logger.js';

/** sysexits.h's EX_CONFIG: the cluster's primary stops replacing a worker that exits with it. */
export const EX_CONFIG = 78;

/**
 * Ends a process that cannot start with one JSON log line on stdout, which log pipelines read
 * like every other: 78 (EX_CONFIG) for a configuration the operator must change, its message
 * the line's (it names settings, never a secret's value), and on a terminal the same text on
 * stderr for the person there; 1 for anything else, with the cause's kind and code
 * (`EADDRINUSE`, a PostgreSQL SQLSTATE) and its stack frames, never its message, which may hold
 * what the logs must not (as every error the service logs). A port already taken names its
 * listener and address.
 */
export function exitOnStartFailure(error: unknown): never {
  // Synchronous, so the line is out before the process exits.
  const logger = createLogger('fatal', pino.destination({ dest: 1, sync: true }));
  if (error instanceof ConfigError) {
    logger.fatal({ err: { kind: error.name } }, error.message);
    if (process.stderr.isTTY) process.stderr.write(`${error.message}\n`);
    process.exit(EX_CONFIG);
  }
  const err = summarizeError(error, { stack: true });
  if (error instanceof ListenError) {
    logger.fatal({ err, listener: error.listener, address: error.address }, error.message);
  } else {
    logger.fatal({ err }, 'failed to start');
  }
  process.exit(1);
}
