import { isDatabaseUnavailable } from '../../db/errors.js';
import { summarizeError } from '../support/error-summary.js';
import type { Logger } from '../support/logger.js';

/**
 * Failed attempts are retried this often: an attempt against a database that refuses
 * connections fails at once, so the service is ready within this (plus the migrations) of the
 * database answering. One that drops packets holds an attempt up to the connect timeout (5 s).
 */
const RETRY_MS = 1_000;

export interface Preparation {
  /** False until the start-up work has run on the database; until then it is not used. */
  readonly done: () => boolean;
  /** Stops retrying (shutdown). */
  readonly stop: () => void;
}

/**
 * The start-up work that needs the database (migrations, the first-key check). It runs once
 * before the service listens, as it always did; when it fails because the database is
 * unavailable the service starts anyway: it listens and answers `/healthz`, every request
 * that needs the database is 503, and the work is retried in the background until it succeeds.
 * Any other failure (a migration the server refuses, no API key) fails the start: thrown from
 * the first attempt, given to `onFatal` from a later one.
 */
export async function prepare(
  work: () => Promise<void>,
  logger: Logger,
  onFatal: (error: unknown) => void,
): Promise<Preparation> {
  let done = false;
  let stopped = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  const attempt = async (): Promise<void> => {
    try {
      await work();
    } catch (error) {
      if (stopped) return;
      if (!isDatabaseUnavailable(error)) throw error;
      // Once: a database down for minutes must not write a line a second.
      if (failures++ === 0) {
        logger.warn(
          { err: summarizeError(error, { stack: false }) },
          'the database is unavailable: starting anyway, answering 503 until it answers; retrying the start-up work every second',
        );
      }
      timer = setTimeout(() => {
        attempt().catch(onFatal);
      }, RETRY_MS);
      return;
    }
    done = true;
    if (failures > 0) logger.info('the database answers: start-up work done, serving');
  };
  await attempt();
  return {
    done: () => done,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
