import {
  createTRPCClient,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  TRPCClientError,
} from '@trpc/client';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { prunedThrough } from '../../db/queries/events.js';
import { events } from '../../db/schema.js';
import { pruneExpiredEvents } from '../../server/domain/events/retention.js';
import type { AppRouter } from '../../server/surfaces/trpc/router.js';
import { createChildDatabase, type ChildDatabase } from '../helpers/child-database.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { freePort } from '../helpers/ports.js';
import { testDatabaseTarget } from '../helpers/database.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

/** A client as a TypeScript front-end on Node would build one: queries over HTTP, SSE for the rest. */
function clientFor(origin: string, key: string) {
  const authorization = `Bearer ${key}`;
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({
          url: `${origin}/trpc`,
          // Node 20 has no EventSource; the eventsource package's takes a fetch that adds the key.
          EventSource,
          eventSourceOptions: {
            fetch: (url, init) =>
              fetch(url, { ...init, headers: { ...init.headers, authorization } }),
          },
        }),
        false: httpLink({ url: `${origin}/trpc`, headers: { authorization } }),
      }),
    ],
  });
}

type Client = ReturnType<typeof clientFor>;

/** An event as the client receives it (tRPC's serialized types make `data` optional). */
interface ReceivedEvent {
  id: string;
  type: string;
  data?: unknown;
}

interface Followed {
  events: ReceivedEvent[];
  /** How many times the subscription (re)connected. */
  starts: number;
  errors: unknown[];
  completed: boolean;
  unsubscribe(): void;
}

function follow(client: Client, input?: { lastEventId?: string }): Followed {
  const followed: Followed = {
    events: [],
    starts: 0,
    errors: [],
    completed: false,
    unsubscribe: () => undefined,
  };
  const subscription = client.events.onChange.subscribe(input, {
    onStarted: () => (followed.starts += 1),
    onData: ({ id, data }) => {
      expect(id).toBe(data.id);
      followed.events.push(data);
    },
    onError: (error) => followed.errors.push(error),
    onComplete: () => (followed.completed = true),
  });
  followed.unsubscribe = () => {
    subscription.unsubscribe();
  };
  return followed;
}

/** Until the subscription's callbacks have made check() true; fails naming `what`. */
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error(`${what}: not within ${timeoutMs} ms`);
    },
    { timeout: timeoutMs, interval: 20 },
  );
}

const KEY = 'subscription-test-key-0123456789';
const target = testDatabaseTarget();
let database: ChildDatabase;

beforeAll(async () => {
  database = await createChildDatabase();
});
afterAll(() => database.destroy());

describe(`httpSubscriptionLink across a restart (${target.kind})`, () => {
  it('receives every change exactly once, in order, resuming by itself', async () => {
    // A fixed port, so the link reconnects to the same address the restarted server listens on.
    const env = { ...database.env, API_KEYS: KEY, PORT: String(await freePort()) };
    let server: ChildServer = await spawnServer(env);
    const client = clientFor(server.origin, KEY);
    const followed = follow(client);
    const create = (name: string) => client.pets.create.mutate({ name, categoryId: 3 });
    try {
      await until(() => followed.starts === 1, 'the subscription starts');
      const before = [await create('Before 1'), await create('Before 2')];
      await until(() => followed.events.length === 2, 'two events before the restart');

      await server.stop();
      expect((await server.exited).code).toBe(0);
      server = await spawnServer(env);
      // Made before the link is back (it waits a few seconds before reconnecting): it gets
      // these only by resuming after the last id it saw.
      const whileAway = [await create('While away 1'), await create('While away 2')];
      await until(() => followed.events.length === 4, 'the events made while away', 15_000);
      expect(followed.starts).toBeGreaterThan(1);
      const after = [await create('After 1')];
      const created = [...before, ...whileAway, ...after];
      await until(() => followed.events.length >= created.length, 'every event');
      // A duplicate would come right behind the last event: 200 ms in which none may arrive.
      await new Promise((resolve) => setTimeout(resolve, 200));

      expect(followed.errors).toEqual([]);
      expect(followed.completed).toBe(false);
      expect(followed.events.map((event) => [event.type, event.data])).toEqual(
        created.map((pet) => ['pet.created', pet]),
      );
      const ids = followed.events.map((event) => Number(event.id));
      expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
    } finally {
      followed.unsubscribe();
      await server.stop();
    }
  }, 90_000);
});

describe('subscription errors over tRPC', () => {
  const server = useTestServer({ eventStreamsPerKey: 1 });

  it('410 travels as NOT_FOUND with data.code GONE', async () => {
    const db = server.database.handle.db;
    await db.insert(events).values(
      Array.from({ length: 2 }, (_, i) => ({
        type: 'pet.deleted' as const,
        data: { id: i + 1 },
        occurredAt: new Date(Date.now() - 7_200_000),
      })),
    );
    await pruneExpiredEvents(db, 3_600);
    const lastEventId = String((await prunedThrough(db)) - 1);
    const followed = follow(clientFor(server.origin, TEST_KEY), { lastEventId });
    await until(() => followed.errors.length > 0, 'the subscription fails');
    const [error] = followed.errors;
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<AppRouter>).data).toMatchObject({
      code: 'GONE',
      httpStatus: 410,
    });
    expect((error as TRPCClientError<AppRouter>).shape?.code).toBe(-32004);
    expect(followed.events).toEqual([]);
  });

  it('past the per-key limit the subscription fails with TOO_MANY_REQUESTS', async () => {
    const client = clientFor(server.origin, TEST_KEY);
    const first = follow(client);
    try {
      await until(() => first.starts === 1, 'the first subscription starts');
      const second = follow(client);
      await until(() => second.errors.length > 0, 'the second subscription fails');
      expect((second.errors[0] as TRPCClientError<AppRouter>).data).toMatchObject({
        code: 'TOO_MANY_REQUESTS',
        httpStatus: 429,
      });
      const pet = await client.pets.create.mutate({ name: 'Still followed', categoryId: 1 });
      await until(() => first.events.length === 1, 'the first still receives');
      expect(first.events[0]?.data).toEqual(pet);
    } finally {
      first.unsubscribe();
    }
  });
});
