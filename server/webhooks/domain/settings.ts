import { DEFAULT_RETRY_DELAYS } from './schedule.js';

/** How long a delivery may take before it has failed, unless WEBHOOK_TIMEOUT says otherwise. */
export const DEFAULT_TIMEOUT_SECONDS = 15;

/** What one deployment sets for webhooks: its WEBHOOK_* variables, and what tests tune. */
export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE: private addresses and `http:` allowed, for development and tests. */
  allowPrivate: boolean;
  /** WEBHOOK_RETRY_DELAYS: the waits before each retry, in seconds. */
  retryDelays: readonly number[];
  /** WEBHOOK_TIMEOUT: a delivery with no answer in this long has failed. */
  timeoutMs: number;
  /** The clock rotations are timed by; tests move it. */
  now: () => Date;
  /** How soon the worker looks again after a look that found work (the delivery worker's). */
  pollMs: number;
  /** Deliveries one process has in flight at most, over every endpoint. */
  maxInFlight: number;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  allowPrivate: false,
  retryDelays: DEFAULT_RETRY_DELAYS,
  timeoutMs: DEFAULT_TIMEOUT_SECONDS * 1000,
  now: () => new Date(),
  pollMs: 100,
  // 10 for each of 200 endpoints: the per-endpoint bound, not this one, is what keeps dead
  // endpoints from starving a healthy one, as long as fewer than 200 hang at once.
  maxInFlight: 2_000,
};

/** The deployment's settings over the defaults. */
export const webhookSettings = (given: Partial<WebhookSettings> = {}): WebhookSettings => ({
  ...DEFAULT_WEBHOOK_SETTINGS,
  ...given,
});
