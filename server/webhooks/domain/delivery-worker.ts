import type { Database } from '../../../db/database.js';
import { claimDeliveries, settledEvents, workWaiting } from '../storage/claim.js';
import { queueDepths, renewLeases, type ClaimedDelivery } from '../storage/deliveries.js';
import { recordAttempt } from '../storage/attempts.js';
import { disableWebhookEndpoint } from '../storage/endpoints.js';
import { summarizeError } from '../../support/error-summary.js';
import type { Logger } from '../../support/logger.js';
import type { ServiceMetrics } from '../../support/service-metrics.js';
import { registerWebhookMetrics } from './metrics.js';
import { judgeAttempt } from './outcome.js';
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
/** The longest an idle worker waits between looks for work: other instances' commits wait this. */
const IDLE_POLL_MS = 1_000;
/**
 * A lease lasts this long unless its holder renews it, which it does every LEASE_RENEW_MS
 * while the attempt runs: a worker that dies mid-attempt has its deliveries taken over within
 * about 8 s, whatever WEBHOOK_TIMEOUT is.
 */
const LEASE_SECONDS = 8;
const LEASE_RENEW_MS = 2_000;

/** What one look for work found. */
interface Look {
  worked: boolean;
  /** It took all it could: more may be waiting. */
  more: boolean;
  /** Some endpoint exists: without one, nothing looks until a wake. */
  endpoints: boolean;
  /** New events wait for the next reading of the log's barrier, due in this many ms. */
  settleInMs?: number;
}

/**
 * The worker's settings are the deployment's (`pollMs`: each look that finds no work doubles
 * the wait, up to a second; a commit in this process and a finished delivery look at once).
 */
export interface DeliveryWorkerOptions extends WebhookSettings {
  db: Database;
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
  let inFlight = 0;
  let settled = 0;
  let settledAt = -Infinity;
  const held = new Map<number, ClaimedDelivery>();
  let renewal: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  const running = new Set<Promise<void>>();

  const warnOnce = (message: string) => (error: unknown) => {
    if (failing) return;
    failing = true;
    logger.warn({ err: summarizeError(error, { stack: false }) }, message);
  };

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const result = await attemptDelivery(agent, delivery, options.timeoutMs);
    const { outcome, disable } = judgeAttempt(result, delivery.attempts, options.retryDelays);
    const { recorded, failingSince } = await recordAttempt(db, delivery, outcome);
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
      renewLeases(db, [...held.values()], LEASE_SECONDS).catch(
        warnOnce('could not renew webhook delivery leases'),
      );
    }, LEASE_RENEW_MS);
    renewal.unref();
  }

  function launch(delivery: ClaimedDelivery) {
    inFlight++;
    held.set(delivery.id, delivery);
    holdLeases();
    const task = deliver(delivery)
      .catch(warnOnce('could not record a webhook delivery'))
      .finally(() => {
        inFlight--;
        held.delete(delivery.id);
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
    const waiting = await workWaiting(db);
    const free = options.maxInFlight - inFlight;
    if (free <= 0 || (!waiting.due && !waiting.fresh)) {
      return { worked: false, more: false, endpoints: waiting.endpoints };
    }
    const sinceSettled = performance.now() - settledAt;
    const settle = waiting.fresh && (inFlight === 0 || sinceSettled >= SETTLE_EVERY_MS);
    if (settle) {
      settledAt = performance.now();
      settled = await settledEvents(db);
    }
    const claimed = await claimDeliveries(db, {
      limit: free,
      leaseSeconds: LEASE_SECONDS,
      settled,
    });
    for (const delivery of claimed) launch(delivery);
    failing = false;
    return {
      worked: claimed.length > 0,
      more: claimed.length === free,
      endpoints: true,
      ...(waiting.fresh && !settle && { settleInMs: SETTLE_EVERY_MS - sinceSettled }),
    };
  }

  // One look at a time; a wake asked for during one looks again right after it.
  let looking = false;
  let lookAgain = false;
  let dueAt = Infinity;
  let idleMs = options.pollMs;

  /** Looks for work in `afterMs`, or sooner if a look is already due sooner. */
  function wake(afterMs: number) {
    if (stopped) return;
    if (looking) {
      lookAgain ||= afterMs === 0;
      return;
    }
    const at = Date.now() + afterMs;
    if (timer !== undefined && at >= dueAt) return;
    clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(look, afterMs);
    timer.unref();
  }

  function look() {
    timer = undefined;
    dueAt = Infinity;
    looking = true;
    round().then(
      (found) => {
        idleMs = found.worked
          ? options.pollMs
          : Math.min(idleMs * 2, Math.max(IDLE_POLL_MS, options.pollMs));
        next(found);
      },
      (error: unknown) => {
        warnOnce('could not claim webhook deliveries')(error);
        next({ worked: false, more: false, endpoints: true });
      },
    );
  }

  /**
   * Without any endpoint nothing is timed: the next look is the next wake (a commit or an
   * endpoint created in this process). An instance that holds endpoints polls for all.
   */
  function next({ more, endpoints, settleInMs }: Look) {
    looking = false;
    const now = lookAgain || more;
    lookAgain = false;
    if (now) wake(0);
    else if (endpoints) wake(Math.min(idleMs, settleInMs ?? Infinity));
  }

  // Attempts still running after a short grace are cut off: unrecorded, their leases run out
  // and they are sent again (same webhook-id), rather than holding a shutdown for 15 s.
  async function finish() {
    stopped = true;
    clearTimeout(timer);
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
