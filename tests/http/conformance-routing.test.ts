import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineQuery, type AnyOperation } from '../../server/operations/define.js';
import { operations } from '../../server/operations/registry.js';
import { mergeRouters, router } from '../../server/surfaces/trpc/init.js';
import { proceduresOf } from '../../server/surfaces/trpc/procedures.js';
import { appRouter } from '../../server/surfaces/trpc/router.js';
import { useTestServer } from '../helpers/server.js';

/** A static path beside a parameter of the same place: `/store/orders/{orderId}`. */
const extra = {
  summary: defineQuery({
    scope: 'read',
    input: z.undefined(),
    output: z.strictObject({ placed: z.int() }),
    rest: {
      method: 'GET',
      path: '/store/orders/summary',
      operationId: 'summarizeOrders',
      summary: 'Count orders',
      description: 'How many orders were placed.',
      tags: ['store'],
      stability: 'experimental',
      successStatus: 200,
      successDescription: 'The count.',
      errorResponses: {},
    },
    handler: () => Promise.resolve({ placed: 3 }),
  }),
};

const server = useTestServer({
  api: {
    router: mergeRouters(appRouter, router({ extra: router(proceduresOf(extra)) })),
    operations: new Map<string, AnyOperation>([...operations, ['extra.summary', extra.summary]]),
  },
});

/**
 * The checker matches a response to its operation as the service routes it: a static segment
 * wins over a parameter, so the summary is held to its own schema, not to an order's.
 */
describe('the conformance check routes as the service does', () => {
  it('holds /store/orders/summary to its own schema', async () => {
    const response = await server.api('GET', '/v1/store/orders/summary');
    expect(response.body).toEqual({ placed: 3 });
  });

  it('still holds /store/orders/{orderId} to the order schema', () => {
    expect(() => {
      server.conformance.check('GET', `${server.baseUrl}/store/orders/7`, {
        status: 200,
        headers: new Headers({ 'x-request-id': 'r', 'content-type': 'application/json' }),
        body: { placed: 3 },
      });
    }).toThrow();
  });
});
