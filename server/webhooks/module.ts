import type { DatabaseHandle } from '../../db/client.js';
import type { Logger } from '../support/logger.js';
import type { ServiceMetrics } from '../support/service-metrics.js';
import { startDeliveryWorker } from './domain/delivery-worker.js';
import { webhookSettings, type WebhookSettings } from './domain/settings.js';

export interface WebhooksOptions {
  database: DatabaseHandle;
  logger: Logger;
  metrics: ServiceMetrics;
  /** The deployment's settings; production's defaults where absent. */
  settings?: Partial<WebhookSettings> | undefined;
  /** False until the start-up work ran on the database: delivery waits for it. */
  prepared: () => boolean;
}

export interface Webhooks {
  /** What the webhook operations read from their context. */
  settings: WebhookSettings;
  /** A change committed in this process: delivery looks for work at once. */
  changed(): void;
  stop(): Promise<void>;
}

/**
 * Webhooks in one process: the settings its operations run with and the delivery worker. The
 * one entry the process wires in; the operations are in the registry like any other.
 */
export function startWebhooks(options: WebhooksOptions): Webhooks {
  const settings = webhookSettings(options.settings);
  if (settings.allowPrivate) {
    options.logger.warn(
      'WEBHOOK_ALLOW_PRIVATE is set: webhooks may go to private addresses and over http, for development only',
    );
  }
  const worker = startDeliveryWorker({
    ...settings,
    db: options.database.db,
    store: options.database.kind,
    logger: options.logger,
    metrics: options.metrics,
    prepared: options.prepared,
  });
  return { settings, changed: worker.changed, stop: () => worker.stop() };
}
