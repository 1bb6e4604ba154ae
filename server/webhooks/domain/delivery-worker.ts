import type { Database } from '../../../db/database.js';
import type { DatabaseHandle } from '../../../db/handle.js';
import { claimDeliveries, settledEvents, workWaiting } from '../storage/claim.js';
import { queueDepths, renewLeases, type ClaimedDelivery } from '../storage/deliveries.js';
import { disableWebhookEndpoint } from '../storage/endpoints.js';
import { summarizeError } from '../../support/error-summary.js';
import type { Logger } from '../../support/logger.js';
import type { ServiceMetrics } from '../../support/service-metrics.js';
import { registerWebhookMetrics } from './metrics.js';
import { scheduleLooks, type Look } from './looks.js';
import { judgeAttempt } from './outcome.js';
import { outcomeWriter } from './outcome-writer.js';
import { requestsFirst } from './requests-first.js';
import type { WebhookSettings } from './settings.js';
import { attemptDelivery, createDeliveryAgent } from './sender.js';

/** An endpoint whose every delivery has failed this long is disabled. */
const FAILING_LIMIT_MS = 5 * 86_400_000;
/**
 * While attempts are in flight, the log's barrier (which writers wait on) is read at most this
 * often, and claims in between take events up to the last reading: a look after each finished
 * delivery would otherwise take it hundreds of times a second.
 */
const SETTLE_EVERY_MS = 50;
const STOP_GRACE_MS = 2_000;
/**
 * A lease lasts this long unless its holder renews it, which it does every LEASE_RENEW_MS
 * while the attempt runs: a worker that dies mid-attempt has its deliveries taken over within
 * about 8 s, whatever WEBHOOK_TIMEOUT is.
 */
const LEASE_SECONDS = 8;
const LEASE_RENEW_MS = 2_000;
/** What a look assumes right after one that found work. */
const AFTER_WORK = { endpoints: true, fresh: true, due: true } as const;

/**
 * The worker's settings are the deployment's (`pollMs`: each look that finds no work doubles
 * the wait, up to a second; a commit in this process and a finished delivery look at once).
 */
export interface DeliveryWorkerOptions extends WebhookSettings {
  db: Database;
  /** Which store `db` is: how busy the API looks depends on it (requests-first.ts). */
  store: DatabaseHandle['kind'];
  logger: Logger;
  metrics: ServiceMetrics;
  /** False until the database's migrations ran: the worker waits for its tables. */
  prepared: () => boolean;
}

/**
 * Delivers webhooks from the database: leases each endpoint's due retries and next events
 * (each endpoint at most 10 in flight, over every worker) and records each attempt. Any number
 * of processes may run it; a lease that its holder did not finish (a crash) runs out and
 * another takes the delivery over.
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): {
  changed: () => void;
  stop(): Promise<void>;
} {
  const { db, logger } = options;
  // After a stop the database may be closed: a scrape then counts no queue.
  const metrics = registerWebhookMetrics(options.metrics.registry, () =>
    options.prepared() && !stopped ? queueDepths(db) : Promise.resolve(new Map<string, number>()),
  );
  const agent = createDeliveryAgent(options.allowPrivate);
  const pace = requestsFirst(options.metrics.databaseWork, options.store);
  const record = outcomeWriter(db, pace.worked);
  let inFlight = 0;
  let settled = 0;
  let settledAt = -Infinity;
  let claimedLast = false;
  // The attempts themselves, not their ids: a delivery whose lease ran out may be claimed again
  // while its older attempt still runs, and that attempt's end must not drop the newer lease.
  const held = new Set<ClaimedDelivery>();
  let renewal: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;
  const running = new Set<Promise<void>>();

  const warnOnce = (message: string) => (error: unknown) => {
    if (failing) return;
    failing = true;
    logger.warn({ err: summarizeError(error, { stack: false }) }, message);
  };

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const result = await attemptDelivery(agent, delivery, options.timeoutMs);
    const { outcome, disable } = judgeAttempt(result, delivery.attempts, options.retryDelays);
    const { recorded, failingSince } = await record({ delivery, outcome });
    if (!recorded) {
      metrics.attempts.inc({ outcome: 'lost' });
      return;
    }
    metrics.attempts.inc({
      outcome: outcome.status === 'pending' ? 'retry' : outcome.status,
    });
    if (outcome.status === 'succeeded') {
      metrics.lag.observe((Date.now() - delivery.occurredAt.getTime()) / 1000);
    }
    const failedTooLong =
      failingSince !== null && Date.now() - failingSince.getTime() > FAILING_LIMIT_MS;
    if (disable || failedTooLong) {
      await disableWebhookEndpoint(db, delivery.endpointId);
      logger.warn(
        { webhook: delivery.endpointId, status: result.status },
        disable
          ? 'webhook endpoint answered 410: disabled'
          : 'webhook endpoint failing for 5 days: disabled',
      );
    }
  }

  /** Renews the leases of the attempts in flight, while there are any: idle, nothing runs. */
  function holdLeases() {
    if (renewal !== undefined) return;
    renewal = setInterval(() => {
      if (held.size === 0) {
        clearInterval(renewal);
        renewal = undefined;
        return;
      }
      renewLeases(db, [...held], LEASE_SECONDS).catch(
        warnOnce('could not renew webhook delivery leases'),
      );
    }, LEASE_RENEW_MS);
    renewal.unref();
  }

  function launch(delivery: ClaimedDelivery) {
    inFlight++;
    held.add(delivery);
    holdLeases();
    const task = deliver(delivery)
      .catch(warnOnce('could not record a webhook delivery'))
      .finally(() => {
        inFlight--;
        held.delete(delivery);
        running.delete(task);
        // A free slot may let a due delivery go now rather than at the next poll.
        wake(0);
      });
    running.add(task);
  }

  /**
   * One look for work. Idle, it is one statement; without endpoints, the last until a wake.
   */
  async function round(): Promise<Look> {
    if (!options.prepared()) return { worked: false, more: false, endpoints: true };
    // While the API is busy, a look that may start nothing runs no statement either.
    const room = options.maxInFlight - inFlight;
    const free = pace.allowance(room);
    if (free <= 0) {
      return {
        worked: false,
        more: false,
        endpoints: true,
        ...(room > 0 && { againInMs: pace.nextInMs() }),
      };
    }
    // Right after a look that found work, the claim itself is the look: one statement less a
    // delivery. Idle, the cheap probe goes first.
    const waiting = claimedLast ? AFTER_WORK : await workWaiting(db);
    if (!waiting.due && !waiting.fresh) {
      return { worked: false, more: false, endpoints: waiting.endpoints };
    }
    const lookedAt = performance.now();
    const sinceSettled = lookedAt - settledAt;
    const settle = waiting.fresh && (inFlight === 0 || sinceSettled >= SETTLE_EVERY_MS);
    if (settle) {
      settledAt = lookedAt;
      settled = await settledEvents(db);
    }
    const claimed = await claimDeliveries(db, {
      limit: free,
      leaseSeconds: LEASE_SECONDS,
      settled,
    });
    pace.worked(performance.now() - lookedAt);
    for (const delivery of claimed) launch(delivery);
    pace.spend(claimed.length);
    failing = false;
    claimedLast = claimed.length > 0;
    return {
      worked: claimed.length > 0,
      more: claimed.length === free,
      endpoints: true,
      ...(waiting.fresh && !settle && { againInMs: SETTLE_EVERY_MS - sinceSettled }),
    };
  }

  const looks = scheduleLooks(round, {
    pollMs: options.pollMs,
    failed: (error) => {
      warnOnce('could not claim webhook deliveries')(error);
    },
  });
  const wake = looks.wake;

  // Attempts still running after a short grace are cut off: unrecorded, their leases run out
  // and they are sent again (same webhook-id), rather than holding a shutdown for 15 s.
  async function finish() {
    stopped = true;
    looks.stop();
    clearInterval(renewal);
    const grace = new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
    await Promise.race([Promise.allSettled([...running]), grace]);
    await agent.destroy();
  }

  wake(0);
  // An app may be closed twice; the agent may be closed once.
  let stopping: Promise<void> | undefined;
  return {
    changed: () => {
      wake(0);
    },
    stop: () => (stopping ??= finish()),
  };
}
