import { Redis } from 'ioredis';
import { summarizeError } from '../../support/error-summary.js';
import type { Logger } from '../../support/logger.js';

/** A hung Redis must cost a request at most this much before the in-process count takes over. */
const REDIS_COMMAND_TIMEOUT_MS = 250;
const REDIS_MAX_RECONNECT_DELAY_MS = 2_000;
/** Failed commands in a row that mean Redis hangs, as a lost connection means it is gone. */
export const REDIS_FAILURES_BEFORE_OUTAGE = 3;
/** How often a Redis that stopped answering on an open connection is asked again. */
export const REDIS_PROBE_INTERVAL_MS = 1_000;

export const REDIS_LOST =
  'Redis is unavailable: rate limits are counted per process until it returns';
export const REDIS_BACK = 'Redis is available again: rate limits are shared again';

export interface RedisHealth {
  client: Redis;
  /**
   * False during an outage, and while the connection is not (yet) ready: requests are then
   * counted in process without asking Redis.
   */
  available(): boolean;
  /** A command failed (a timeout, a refused write); a few in a row start an outage. */
  failed(): void;
  succeeded(): void;
  close(): Promise<void>;
}

/**
 * The connection to Redis and whether to use it. A lost connection is an outage at once; a
 * Redis that keeps the connection open but does not answer (stopped, swapping, overloaded)
 * would otherwise cost every request its command timeout, forever: after a few failures in a
 * row it is an outage too, and a background PING every second ends it once Redis answers.
 * Each outage is logged once, when it starts and when it ends.
 */
export function connectRedis(url: string, logger: Logger): RedisHealth {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_MAX_RECONNECT_DELAY_MS),
  });
  let up = true;
  let closing = false;
  let failures = 0;
  let probe: NodeJS.Timeout | undefined;

  const recovered = () => {
    failures = 0;
    clearInterval(probe);
    probe = undefined;
    if (up || closing) return;
    up = true;
    logger.info(REDIS_BACK);
  };
  const lost = (reason: 'disconnected' | 'not answering', err?: unknown) => {
    if (closing) return;
    if (up) {
      up = false;
      const detail = err === undefined ? {} : { err: summarizeError(err, { stack: false }) };
      logger.warn({ reason, ...detail }, REDIS_LOST);
    }
    // A reconnect announces itself ('ready'); an open connection that stopped answering does not.
    probe ??= setInterval(() => {
      if (client.status !== 'ready') return;
      client.ping().then(recovered, () => undefined);
    }, REDIS_PROBE_INTERVAL_MS).unref();
  };

  client.on('error', (err: unknown) => {
    lost('disconnected', err);
  });
  client.on('close', () => {
    lost('disconnected');
  });
  client.on('ready', recovered);

  return {
    client,
    available: () => up && client.status === 'ready',
    failed: () => {
      if (++failures >= REDIS_FAILURES_BEFORE_OUTAGE) lost('not answering');
    },
    succeeded: () => {
      failures = 0;
    },
    close: async () => {
      closing = true;
      clearInterval(probe);
      await client.quit().catch(() => {
        client.disconnect();
      });
    },
  };
}
