import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AppRouter } from '../../server/surfaces/trpc/router.js';
import type { Order } from '../../server/domain/schemas/order.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';
import { checkedFetch } from '../helpers/http.js';

const server = useTestServer();

function clientWith(key: string | null, headers: Record<string, string> = {}) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${server.origin}/trpc`,
        headers: key === null ? headers : { authorization: `Bearer ${key}`, ...headers },
        fetch: checkedFetch(server.conformance),
      }),
    ],
  });
}

/** The TRPCClientError a call rejected with, typed by the router. */
async function failure(call: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const error: unknown = await call.catch((cause: unknown) => cause);
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<AppRouter>;
}

/** A TypeScript front-end, typed by AppRouter, calling over HTTP. */
describe('@trpc/client typed by AppRouter', () => {
  it('calls pets.create, pets.list and pets.get', async () => {
    const client = clientWith(TEST_KEY);
    const created = await client.pets.create.mutate({ name: 'Nibbles', categoryId: 2 });
    expectTypeOf(created).toEqualTypeOf<Pet>();
    expect(created).toMatchObject({ name: 'Nibbles', categoryId: 2, status: 'available' });

    const listed = await client.pets.list.query({ status: 'available', limit: 100 });
    expect(listed.map((pet) => pet.id)).toContain(created.id);
    await expect(client.pets.get.query({ petId: created.id })).resolves.toEqual(created);
  });

  it('lists with no input at all, as every list parameter is optional', async () => {
    const client = clientWith(TEST_KEY);
    await client.pets.create.mutate({ name: 'Pip', categoryId: 1 });
    const page = await client.pets.list.query();
    expect(page.length).toBeGreaterThan(0);
    expect(page.length).toBeLessThanOrEqual(20);
  });

  it('surfaces validation errors with the offending fields', async () => {
    const client = clientWith(TEST_KEY);
    const error: unknown = await client.pets.create
      // @ts-expect-error categoryId must be a number: a wrong input does not compile
      .mutate({ name: 'Nibbles', categoryId: '2' })
      .catch((cause: unknown) => cause);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<AppRouter>).data).toMatchObject({
      code: 'BAD_REQUEST',
      httpStatus: 400,
    });
  });

  it('is refused without a valid key, before its input is looked at', async () => {
    const error: unknown = await clientWith('wrong-key')
      // @ts-expect-error unknown fields do not compile either
      .pets.create.mutate({ name: 'x', categoryId: 1, colour: 'brown' })
      .catch((cause: unknown) => cause);
    expect((error as TRPCClientError<AppRouter>).data).toMatchObject({
      code: 'UNAUTHORIZED',
      httpStatus: 401,
    });
  });

  it('reports a missing pet as NOT_FOUND', async () => {
    const error: unknown = await clientWith(TEST_KEY)
      .pets.get.query({ petId: 999999 })
      .catch((cause: unknown) => cause);
    expect((error as TRPCClientError<AppRouter>).message).toBe('No pet with id 999999');
  });
});

describe('@trpc/client on the store procedures', () => {
  it('updates and deletes a pet, with If-Match as a header of the client', async () => {
    const client = clientWith(TEST_KEY);
    const pet = await client.pets.create.mutate({ name: 'Clover', categoryId: 5 });
    const updated = await client.pets.update.mutate({ petId: pet.id, status: 'pending' });
    expectTypeOf(updated).toEqualTypeOf<Pet>();
    expect(updated).toEqual({ ...pet, status: 'pending' });

    const stale = clientWith(TEST_KEY, { 'if-match': `"${pet.id}.1"` });
    const refused = await failure(stale.pets.update.mutate({ petId: pet.id, name: 'Late' }));
    expect(refused.data).toMatchObject({ code: 'PRECONDITION_FAILED', httpStatus: 412 });

    const sold = await client.pets.update.mutate({ petId: pet.id, status: 'sold' });
    const final = await failure(client.pets.update.mutate({ petId: sold.id, status: 'available' }));
    expect(final.data?.code).toBe('CONFLICT');
    expect(final.message).toMatch(/sold.*available/);

    const deleted = await client.pets.delete.mutate({ petId: pet.id });
    expect(deleted).toBeUndefined();
    const again = await failure(client.pets.delete.mutate({ petId: pet.id }));
    expect(again.data?.code).toBe('NOT_FOUND');
  });

  it('places, gets, lists and moves an order', async () => {
    const client = clientWith(TEST_KEY);
    const pet = await client.pets.create.mutate({ name: 'Juniper', categoryId: 1 });
    const order = await client.orders.place.mutate({ petId: pet.id });
    expectTypeOf(order).toEqualTypeOf<Order>();
    expect(order).toMatchObject({ petId: pet.id, status: 'placed' });
    const taken = await failure(client.orders.place.mutate({ petId: pet.id }));
    expect(taken.data).toMatchObject({ code: 'CONFLICT', httpStatus: 409 });

    await expect(client.orders.get.query({ orderId: order.id })).resolves.toEqual(order);
    await expect(client.orders.list.query({ petId: pet.id })).resolves.toEqual([order]);
    const page = await client.orders.listPage.query({ petId: pet.id, limit: 1 });
    expect(page).toEqual({ items: [order], nextCursor: null });

    const cancelled = await client.orders.update.mutate({ orderId: order.id, status: 'cancelled' });
    expect(cancelled.status).toBe('cancelled');
    await expect(client.pets.get.query({ petId: pet.id })).resolves.toMatchObject({
      status: 'available',
    });
    const invalid = await failure(
      // @ts-expect-error an order status outside OrderStatus does not compile
      client.orders.update.mutate({ orderId: order.id, status: 'shipped' }),
    );
    expect(invalid.data?.code).toBe('BAD_REQUEST');
  });
});

/** A fetch that notes how each answer was framed: tRPC's adapter streams it in chunks. */
function framingRecorder() {
  const framings: string[] = [];
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    framings.push(response.headers.get('transfer-encoding') ?? 'content-length');
    return response;
  };
  return { framings, fetch: recordingFetch };
}

describe('the two paths behind /trpc', () => {
  const url = () => `${server.origin}/trpc`;
  const headers = { authorization: `Bearer ${TEST_KEY}` };

  it('serves httpLink calls on the lean path, with a Content-Length', async () => {
    const recorder = framingRecorder();
    const client = createTRPCClient<AppRouter>({
      links: [httpLink({ url: url(), headers, fetch: recorder.fetch })],
    });
    const created = await client.pets.create.mutate({ name: 'Lean', categoryId: 3 });
    await expect(client.pets.get.query({ petId: created.id })).resolves.toEqual(created);
    expect(recorder.framings).toEqual(['content-length', 'content-length']);
  });

  it("serves httpBatchLink batches through tRPC's adapter", async () => {
    const recorder = framingRecorder();
    const client = createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: url(), headers, fetch: recorder.fetch })],
    });
    const created = await client.pets.create.mutate({ name: 'Batched', categoryId: 3 });
    const [got, page, missing] = await Promise.all([
      client.pets.get.query({ petId: created.id }),
      client.pets.listPage.query({ limit: 100 }),
      client.pets.get.query({ petId: 999999 }).catch((cause: unknown) => cause),
    ]);
    expect(got).toEqual(created);
    expect(page.items).toContainEqual(created);
    expect((missing as TRPCClientError<AppRouter>).data).toMatchObject({
      code: 'NOT_FOUND',
      httpStatus: 404,
    });
    // One request for the mutation, one for the batch of three queries.
    expect(recorder.framings).toEqual(['chunked', 'chunked']);
  });
});
