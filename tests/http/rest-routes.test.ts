import type { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../server/operations/define.js';
import type { RequestState } from '../../server/surfaces/http/pipeline/request-state.js';
import { createRestEndpoints } from '../../server/surfaces/http/rest/endpoints.js';
import { operations } from '../../server/operations/registry.js';

/**
 * A static route beside `/store/orders/{orderId}`: no operation has one yet, so a scratch copy
 * of the inventory operation stands in for it, registered before and after the real routes.
 */
function withScratchRoute(first: boolean): ReadonlyMap<string, AnyOperation> {
  const inventory = operations.get('store.inventory');
  if (!inventory?.rest) throw new Error('store.inventory has no REST binding');
  const scratch: [string, AnyOperation] = [
    'store.scratchInventory',
    {
      ...inventory,
      rest: { ...inventory.rest, path: '/store/orders/inventory', operationId: 'scratchInventory' },
    },
  ];
  return new Map(first ? [scratch, ...operations] : [...operations, scratch]);
}

function stateOf(method: string, path: string): RequestState {
  return { method, path, headers: {}, origin: 'http://pets.test' } as unknown as RequestState;
}

/** The operationId the request is routed to, or the status and Allow of its refusal. */
async function routed(table: ReadonlyMap<string, AnyOperation>, method: string, path: string) {
  const state = stateOf(method, path);
  const { endpoint } = createRestEndpoints(table).match(state);
  if (endpoint.operation !== 'unmatched') return endpoint.operation;
  const error = (await endpoint.serve({} as never).catch((cause: unknown) => cause)) as TRPCError;
  return state.headers.allow ? `${error.code} ${state.headers.allow}` : error.code;
}

describe('REST routing', () => {
  it.each([
    ['registered first', true],
    ['registered last', false],
  ])('serves a static segment before a parameter at its place, %s', async (_, first) => {
    const table = withScratchRoute(first);
    expect(await routed(table, 'GET', '/v1/store/orders/inventory')).toBe('scratchInventory');
    expect(await routed(table, 'GET', '/v1/store/orders/5')).toBe('getOrder');
    // The static route has only GET: another method still reaches the parameter's route.
    expect(await routed(table, 'PATCH', '/v1/store/orders/inventory')).toBe('updateOrder');
    expect(await routed(table, 'DELETE', '/v1/store/orders/inventory')).toBe(
      'METHOD_NOT_SUPPORTED GET, PATCH',
    );
  });

  it('matches paths exactly as sent', async () => {
    const table = operations;
    expect(await routed(table, 'GET', '/v1/pets/12')).toBe('getPet');
    // A parameter is routed as sent; what its encoding means is the input's to say (400).
    for (const path of ['/v1/pets/%31', '/v1/pets/a%zz', '/v1/pets/a%2Fb', '/v1/pets/a#b']) {
      expect(await routed(table, 'GET', path), path).toBe('getPet');
    }
    expect(await routed(table, 'DELETE', '/v1/pets')).toBe('METHOD_NOT_SUPPORTED GET, POST');
    expect(await routed(table, 'PUT', '/v1/pets/12')).toBe(
      'METHOD_NOT_SUPPORTED GET, PATCH, DELETE',
    );
    for (const path of [
      '/v1/pets/',
      '/v1/pets/12/',
      '/v1//pets',
      '/v1/Pets/12',
      '/v1/p%65ts',
      '/v1/p%65ts/12',
      '/v1/store/orders/',
      '/v1/store%2Forders/5',
    ]) {
      expect(await routed(table, 'GET', path), path).toBe('NOT_FOUND');
    }
  });

  it('routes the event stream as any other entry: GET streams, another method is a 405', async () => {
    expect(await routed(operations, 'GET', '/v1/events')).toBe('streamEvents');
    for (const method of ['POST', 'HEAD', 'DELETE']) {
      expect(await routed(operations, method, '/v1/events'), method).toBe(
        'METHOD_NOT_SUPPORTED GET',
      );
    }
    expect(await routed(operations, 'GET', '/v1/events/')).toBe('NOT_FOUND');
    expect(await routed(operations, 'GET', '/v1/events/tickets')).toBe('METHOD_NOT_SUPPORTED POST');
  });
});
