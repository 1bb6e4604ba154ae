import type { Logger } from '../support/logger.js';
import { summarizeError } from '../support/error-summary.js';

/** Time allowed to close the database after the requests are done. */
const CLOSE_ALLOWANCE_MS = 10_000;

/**
 * Runs `stop` once on the first SIGTERM or SIGINT and exits 0 when it is done. Later signals
 * are ignored rather than killing the process halfway through closing the database; a stop
 * that hangs still ends the process (exit 1) once the grace period and an allowance are over.
 */
export function onShutdownSignal(logger: Logger, graceMs: number, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, graceMs + CLOSE_ALLOWANCE_MS).unref();
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: summarizeError(error, { stack: true }) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
