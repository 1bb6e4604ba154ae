import { createTRPCClient, httpSubscriptionLink, TRPCClientError } from '@trpc/client';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppRouter } from '../../server/surfaces/trpc/router.js';
import { spawnServer } from '../helpers/child-server.js';
import { loadConformance } from '../helpers/conformance.js';
import { createPostgresDatabase, describeOnPostgres, postgresTarget } from '../helpers/database.js';
import { followEvents, type EventServer } from '../helpers/events.js';
import { keysProcess, runKeys } from '../helpers/keys-cli.js';
import { useTestServer } from '../helpers/server.js';
import { openStream } from '../helpers/sse.js';

/** The contract: a revoked key's open streams end within 1 s, on every process and instance. */
const WITHIN_MS = 1_000;

/** An `events.onChange` subscription as a front-end follows it, and how it ended. */
function subscribe(origin: string, key: string) {
  const client = createTRPCClient<AppRouter>({
    links: [
      httpSubscriptionLink({
        url: `${origin}/trpc`,
        EventSource,
        eventSourceOptions: {
          fetch: (url, init) =>
            fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${key}` } }),
        },
      }),
    ],
  });
  const seen = { ids: [] as string[], started: false };
  let subscription: { unsubscribe(): void } | undefined;
  const failed = new Promise<{ error: unknown; at: number }>((resolve) => {
    subscription = client.events.onChange.subscribe(undefined, {
      onStarted: () => (seen.started = true),
      onData: ({ id }) => seen.ids.push(id),
      onError: (error) => {
        resolve({ error, at: performance.now() });
      },
    });
  });
  // onStarted sets the flag: the subscription's own event, observed within 10 s.
  const started = () =>
    vi.waitFor(
      () => {
        expect(seen.started).toBe(true);
      },
      { timeout: 10_000, interval: 20 },
    );
  return { seen, failed, started, close: () => subscription?.unsubscribe() };
}

/** Opens a REST stream and a tRPC subscription with `key` on `server`; both live. */
async function openBoth(server: EventServer, key: string) {
  const rest = await followEvents(server, key);
  const trpc = subscribe(server.origin, key);
  await trpc.started();
  const restEnded = rest.stream.ended.then((end) => ({ end, at: performance.now() }));
  return { rest, trpc, restEnded };
}

type Opened = Awaited<ReturnType<typeof openBoth>>;

/** Every stream ended within the bound after `revokedAt`: REST cleanly, tRPC UNAUTHORIZED. */
async function expectEnded(opened: Opened[], revokedAt: number) {
  for (const { rest, trpc, restEnded } of opened) {
    const ended = await restEnded;
    expect(ended.end).toBe('end');
    expect(ended.at - revokedAt).toBeLessThan(WITHIN_MS);
    const failed = await trpc.failed;
    expect(failed.error).toBeInstanceOf(TRPCClientError);
    expect((failed.error as TRPCClientError<AppRouter>).data?.code).toBe('UNAUTHORIZED');
    expect(failed.at - revokedAt).toBeLessThan(WITHIN_MS);
    rest.close();
    trpc.close();
  }
}

describe('a revoked key on one process', () => {
  const server = useTestServer();
  let key: { id: string; key: string };

  beforeAll(async () => {
    const run = await runKeys(server.database.handle.db, 'create', '--name', 'revoked', '--json');
    key = JSON.parse(run.stdout) as { id: string; key: string };
  });

  it('ends its REST stream and its tRPC subscription within 1 s', async () => {
    const other = await runKeys(server.database.handle.db, 'create', '--name', 'kept', '--json');
    const kept = JSON.parse(other.stdout) as { key: string };
    const opened = await openBoth(server, key.key);
    const bystander = await followEvents(server, kept.key);

    const revokedAt = performance.now();
    expect((await runKeys(server.database.handle.db, 'revoke', key.id)).code).toBe(0);
    await expectEnded([opened], revokedAt);
    // A reconnect is refused, or, while a process still holds the key in its 1 s cache,
    // ends like the first.
    const again = await openStream(server.origin, '/v1/events', {
      headers: { authorization: `Bearer ${key.key}` },
    });
    const reopenedAt = performance.now();
    if (again.status === 200) {
      expect(await again.ended).toBe('end');
      expect(performance.now() - reopenedAt).toBeLessThan(WITHIN_MS);
    } else {
      await again.ended;
      expect(again.status).toBe(401);
      server.conformance.check('GET', `${server.origin}/v1/events`, {
        status: again.status,
        headers: new Headers(again.headers as Record<string, string>),
        body: JSON.parse(again.body) as unknown,
      });
    }

    // Another key's stream goes on, and still receives changes.
    const created = await server.api<{ id: number }>('POST', '/v1/pets', {
      body: { name: 'After revocation', categoryId: 1 },
    });
    await bystander.until('pet.created', created.body.id);
    bystander.close();
  }, 30_000);
});

/** Two processes need a shared server; the embedded database serves one process only. */
describeOnPostgres('a revoked key on two instances', () => {
  let url: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ url, drop } = await createPostgresDatabase(postgresTarget()));
  });
  afterAll(() => drop());

  it('ends its streams on both within 1 s of `npm run keys -- revoke`', async () => {
    const env = { DATABASE_URL: url, API_KEYS: 'revocation-bootstrap-key-0123', RATE_LIMIT: 'off' };
    const [first, second] = await Promise.all([spawnServer(env), spawnServer(env)]);
    try {
      const created = await keysProcess(['create', '--name', 'revoked', '--json'], {
        DATABASE_URL: url,
      });
      const key = JSON.parse(created.stdout) as { id: string; key: string };
      const opened: Opened[] = [];
      for (const server of [first, second]) {
        const conformance = await loadConformance(server.origin);
        opened.push(await openBoth({ origin: server.origin, conformance }, key.key));
      }
      const revoked = await keysProcess(['revoke', key.id], { DATABASE_URL: url });
      expect(revoked.code).toBe(0);
      // The command's own start-up is not the service's time: measure from its exit.
      await expectEnded(opened, performance.now());
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  }, 90_000);
});
