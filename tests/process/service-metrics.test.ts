import { describe, expect, it } from 'vitest';
import { ServiceMetrics } from '../../server/support/service-metrics.js';

/** The pool figures are inferred from the requests with database work pending (docs/operations.md). */
async function gauges(metrics: ServiceMetrics): Promise<Record<string, number | undefined>> {
  const all = await metrics.registry.getMetricsAsJSON();
  return Object.fromEntries(all.map((metric) => [metric.name, metric.values[0]?.value]));
}

describe('the database pool metrics', () => {
  it('count pending requests as in use up to the pool size and the rest as waiting', async () => {
    const metrics = new ServiceMetrics(2);
    for (let i = 0; i < 3; i++) metrics.databaseWork.enter(0);
    expect(await gauges(metrics)).toMatchObject({
      petstore_database_requests_in_flight: 3,
      petstore_database_pool_in_use: 2,
      petstore_database_pool_waiting: 1,
      petstore_database_pool_size: 2,
    });

    for (let i = 0; i < 3; i++) metrics.databaseWork.leave(1);
    expect(await gauges(metrics)).toMatchObject({
      petstore_database_requests_in_flight: 0,
      petstore_database_pool_in_use: 0,
      petstore_database_pool_waiting: 0,
    });
  });
});
