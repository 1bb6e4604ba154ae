import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { AppRouter } from '../../server/routers/_app.js';
import type { Pet } from '../../server/schemas/pet.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { trpcCheckedFetch } from '../helpers/trpc-fetch.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

function clientWith(key: string | null) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${server.origin}/trpc`,
        headers: key === null ? {} : { authorization: `Bearer ${key}` },
        fetch: trpcCheckedFetch(server.conformance),
      }),
    ],
  });
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
