import { getUntypedClient } from '@trpc/client';
import { EventSource } from 'eventsource';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createPetstoreRestClient,
  createPetstoreTrpcClient,
  TRPCClientError,
  type PetstoreTrpcClient,
} from '../../client/index.js';
import { operations, registry } from '../../server/operations/registry.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { procedure, router } from '../../server/surfaces/trpc/init.js';
import { proceduresOf } from '../../server/surfaces/trpc/procedures.js';
import { checkedFetch } from '../helpers/http.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

/**
 * The service's pet procedures, plus a subscription in place of `events.onChange` (its registry
 * entry names it): it tells which key the service saw, so a test can tell that the key
 * travelled with it.
 */
const api = {
  router: router({
    pets: router(proceduresOf(registry.pets)),
    events: router({
      onChange: procedure.subscription(async function* ({ ctx }) {
        yield await Promise.resolve({ keyId: ctx.principal?.keyId ?? null });
      }),
    }),
  }),
  operations: new Map(
    [...operations].filter(([name]) => name.startsWith('pets.') || name === 'events.onChange'),
  ),
};

const server = useTestServer({ api });

function firstEvent(client: PetstoreTrpcClient, path: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const subscription = getUntypedClient(client).subscription(path, undefined, {
      onData: (data) => {
        subscription.unsubscribe();
        resolve(data);
      },
      onError: (error) => {
        subscription.unsubscribe();
        reject(error as Error);
      },
    });
  });
}

describe('createPetstoreTrpcClient', () => {
  it('sends the API key and batches calls made together', async () => {
    const client = createPetstoreTrpcClient({ url: `${server.origin}/trpc`, apiKey: TEST_KEY });
    const created = await client.pets.create.mutate({ name: 'Factory', categoryId: 2 });
    expectTypeOf(created).toEqualTypeOf<Pet>();
    const [got, page] = await Promise.all([
      client.pets.get.query({ petId: created.id }),
      client.pets.list.query({ limit: 100 }),
    ]);
    expect(got).toEqual(created);
    expect(page).toContainEqual(created);
    const batched = server.logs.filter((line) => String(line.route).includes(','));
    expect(batched.map((line) => line.status)).toContain(200);
  });

  it('throws the TRPCClientError it exports, so instanceof holds', async () => {
    const client = createPetstoreTrpcClient({ url: `${server.origin}/trpc`, apiKey: 'wrong' });
    const error: unknown = await client.pets.list.query().catch((cause: unknown) => cause);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<never>).data).toMatchObject({ httpStatus: 401 });
  });

  it('sends subscriptions over Server-Sent Events, with the key through eventSourceOptions', async () => {
    const client = createPetstoreTrpcClient({
      url: `${server.origin}/trpc`,
      apiKey: TEST_KEY,
      subscriptions: {
        EventSource,
        // The recipe of docs/clients.md: the `eventsource` package sends its requests through
        // this fetch.
        eventSourceOptions: ({ headers }) => ({
          fetch: (url, init) => fetch(url, { ...init, headers: { ...init.headers, ...headers } }),
        }),
      },
    });
    await expect(firstEvent(client, 'events.onChange')).resolves.toEqual({ keyId: 'env-1' });
    const subscribed = server.logs.find((line) => line.route === '/trpc/events.onChange');
    expect(subscribed).toMatchObject({ method: 'GET', status: 200, keyId: 'env-1' });
  });

  it('cannot authenticate a subscription whose EventSource is given no way to send the key', async () => {
    const client = createPetstoreTrpcClient({
      url: `${server.origin}/trpc`,
      apiKey: TEST_KEY,
      subscriptions: { EventSource },
    });
    const error: unknown = await firstEvent(client, 'events.onChange').catch(
      (cause: unknown) => cause,
    );
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as Error).message).toBe('Non-200 status code (401)');
  });
});

describe('createPetstoreRestClient', () => {
  it('creates and reads a pet with the API key', async () => {
    const client = createPetstoreRestClient({
      baseUrl: server.baseUrl,
      apiKey: TEST_KEY,
      fetch: checkedFetch(server.conformance),
    });
    const created = await client.POST('/pets', { body: { name: 'Restful', categoryId: 7 } });
    expect(created.response.status).toBe(201);
    const id = created.data?.id ?? 0;
    const fetched = await client.GET('/pets/{petId}', { params: { path: { petId: id } } });
    expect(fetched.data).toEqual(created.data);
  });

  it('reports a refused key in the Error body', async () => {
    const client = createPetstoreRestClient({ baseUrl: server.baseUrl, apiKey: 'wrong' });
    const { error, response } = await client.GET('/pets');
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });
});
