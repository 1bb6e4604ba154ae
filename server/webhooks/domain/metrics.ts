import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface WebhookMetrics {
  attempts: Counter<'outcome'>;
  lag: Histogram;
}

/**
 * The webhook metrics, on the app's registry. The queue depth is counted when the metrics are
 * read, so nothing is counted for no one.
 */
export function registerWebhookMetrics(
  registry: Registry,
  queueDepths: () => Promise<ReadonlyMap<string, number>>,
): WebhookMetrics {
  new Gauge({
    name: 'petstore_webhook_queue_depth',
    help: 'Webhook deliveries waiting per endpoint (pending, or their event not yet attempted), counted when the metrics are read',
    labelNames: ['endpoint'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const [endpoint, count] of await queueDepths()) this.set({ endpoint }, count);
    },
  });
  return {
    attempts: new Counter({
      name: 'petstore_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome: succeeded, retry (failed, to be tried again), failed (given up) or lost (its lease was taken over)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    lag: new Histogram({
      name: 'petstore_webhook_delivery_lag_seconds',
      help: 'From the commit of a change to the success of its delivery to one endpoint',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86_400],
      registers: [registry],
    }),
  };
}
