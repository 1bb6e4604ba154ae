import { beforeAll, describe, expect, it } from 'vitest';
import type { OrderStatus } from '../../db/queries/orders.js';
import type { Order } from '../../server/domain/schemas/order.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { runBounded } from '../helpers/load.js';
import { newPet } from '../helpers/factories.js';
import { nextLink, walkCursors, walkLinks } from '../helpers/pages.js';
import { useTestServer } from '../helpers/server.js';

/** listOrders over REST (Link headers) and orders.listPage over tRPC, on real orders. */
const server = useTestServer();

interface OrderPage {
  items: Order[];
  nextCursor: string | null;
}

const ORDERS = 26;
/** What each order is moved to after it is placed, by its index. */
const finalStatus = (index: number): OrderStatus =>
  index % 3 === 0 ? 'cancelled' : index % 4 === 0 ? 'approved' : 'placed';

let all: Order[] = [];

beforeAll(async () => {
  all = await runBounded(ORDERS, 4, async (index) => {
    const pet = await server.api<Pet>('POST', '/v1/pets', { body: newPet() });
    const order = await server.api<Order>('POST', '/v1/store/orders', {
      body: { petId: pet.body.id },
    });
    const status = finalStatus(index);
    if (status === 'placed') return order.body;
    const path = `/v1/store/orders/${order.body.id}`;
    return (await server.api<Order>('PATCH', path, { body: { status } })).body;
  });
  all.sort((a, b) => a.id - b.id);
}, 120_000);

/** The documented shape of the next link, for the filters of `query`. */
function expectNext(next: URL | undefined, query: string): URL {
  expect(next).toBeDefined();
  expect(`${next?.origin}${next?.pathname}`).toBe(`${server.baseUrl}/store/orders`);
  expect(next?.search).toMatch(new RegExp(`^\\?${query}&cursor=[A-Za-z0-9_.-]+$`));
  return next ?? new URL(server.origin);
}

/** Follows `next` from the first page of `query` until it is absent: full pages, then the last. */
async function walk(query: string, limit: number): Promise<{ ids: number[]; pages: number }> {
  const { items, pages } = await walkLinks<Order>(
    server.api,
    `/v1/store/orders?${query}`,
    (page, next) => {
      if (next) expectNext(next, query);
      expect(page.body.length).toBe(next ? limit : page.body.length);
      expect(page.body.length).toBeLessThanOrEqual(limit);
    },
  );
  return { ids: items.map((order) => order.id), pages };
}

describe('GET /v1/store/orders', () => {
  it('answers a bare array in ascending id order, 20 by default, with a next link', async () => {
    const response = await server.api<Order[]>('GET', '/v1/store/orders');
    expect(response.body).toEqual(all.slice(0, 20));
    expectNext(nextLink(response.headers), 'limit=20');
  });

  it.each([
    ['limit=5', () => all],
    ['limit=7&status=cancelled', () => all.filter((order) => order.status === 'cancelled')],
    ['limit=2&status=approved', () => all.filter((order) => order.status === 'approved')],
    ['limit=100&status=placed', () => all.filter((order) => order.status === 'placed')],
  ])('visits every order of %s once, following Link', async (query, expected) => {
    const limit = Number(/limit=(\d+)/.exec(query)?.[1]);
    const { ids, pages } = await walk(query, limit);
    expect(ids).toEqual(expected().map((order) => order.id));
    expect(pages).toBe(Math.max(1, Math.ceil(expected().length / limit)));
  });

  it('filters by pet, alone and with a status', async () => {
    const order = all.find((each) => each.status === 'cancelled');
    if (!order) throw new Error('no cancelled order to look for');
    const byPet = await server.api<Order[]>('GET', `/v1/store/orders?petId=${order.petId}`);
    expect(byPet.body).toEqual([order]);
    expect(byPet.headers.get('link')).toBeNull();
    const other = await server.api<Order[]>(
      'GET',
      `/v1/store/orders?petId=${order.petId}&status=placed`,
    );
    expect(other.body).toEqual([]);
  });

  it('carries both filters in the next link', async () => {
    const pet = await server.api<Pet>('POST', '/v1/pets', { body: newPet() });
    for (let round = 0; round < 3; round++) {
      const placed = await server.api<Order>('POST', '/v1/store/orders', {
        body: { petId: pet.body.id },
      });
      await server.api('PATCH', `/v1/store/orders/${placed.body.id}`, {
        body: { status: 'cancelled' },
      });
    }
    const query = `limit=1&status=cancelled&petId=${pet.body.id}`;
    const { ids } = await walk(query, 1);
    expect(ids).toHaveLength(3);
  });

  it.each([['limit=0'], ['limit=101'], ['limit=x'], ['status=lost'], ['petId=0'], ['colour=red']])(
    'refuses %s with 400',
    async (query) => {
      expect((await server.api('GET', `/v1/store/orders?${query}`)).status).toBe(400);
    },
  );

  it('refuses a cursor with other filters than it was issued for, naming cursor', async () => {
    const first = await server.api('GET', '/v1/store/orders?limit=2&status=placed');
    const next = expectNext(nextLink(first.headers), 'limit=2&status=placed');
    const cursor = next.searchParams.get('cursor') ?? '';
    for (const query of [
      `cursor=${cursor}`,
      `status=cancelled&cursor=${cursor}`,
      `status=placed&petId=${all[0]?.petId ?? 1}&cursor=${cursor}`,
    ]) {
      const response = await server.api<{ issues: { path: string }[] }>(
        'GET',
        `/v1/store/orders?${query}`,
      );
      expect(response.status).toBe(400);
      expect(response.body.issues.map((issue) => issue.path)).toEqual(['cursor']);
    }
    const pets = await server.api('GET', `/v1/pets?cursor=${cursor}`);
    expect(pets.status).toBe(400);
  });
});

describe('orders.listPage over tRPC', () => {
  it('pages with nextCursor until it is null, the same orders as REST', async () => {
    const { items } = await walkCursors(async (cursor) => {
      const input = { limit: 4, status: 'placed' as const, ...(cursor ? { cursor } : {}) };
      const response = await server.trpc<{ result: { data: OrderPage } }>(
        'orders.listPage',
        input,
        'query',
      );
      expect(response.status).toBe(200);
      expect(response.body.result.data.items.length).toBeLessThanOrEqual(4);
      return response.body.result.data;
    });
    const ids = items.map((order) => order.id);
    expect(ids).toEqual(all.filter((order) => order.status === 'placed').map((order) => order.id));
  });

  it('lists over tRPC with no input at all', async () => {
    const response = await server.trpc<{ result: { data: Order[] } }>(
      'orders.list',
      undefined,
      'query',
    );
    expect(response.body.result.data).toEqual(all.slice(0, 20));
  });
});
