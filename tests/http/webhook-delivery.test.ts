import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { executeRows } from '../../db/database.js';
import { eventsAfter } from '../../db/queries/events.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type Behaviour, type Receiver } from '../helpers/webhook-receiver.js';

interface Created {
  id: string;
  secret: string;
}
interface Delivery {
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
  lastError: string | null;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server that allows loopback receivers, with the schedule and the timeout compressed. */
async function server(timeoutMs = 2_000, pollMs = 20): Promise<TestServer> {
  const started = await startTestServer({
    webhooks: { allowPrivate: true, retryDelays: [0.2, 0.2, 0.2], timeoutMs, pollMs },
  });
  cleanups.push(() => started.close());
  return started;
}

async function receiver(behaviour?: Behaviour): Promise<Receiver> {
  const started = await startReceiver(behaviour);
  cleanups.push(() => started.close());
  return started;
}

async function register(s: TestServer, url: string, types?: string[]): Promise<Created> {
  const { status, body } = await s.api<Created>('POST', '/v1/webhooks', { body: { url, types } });
  expect(status).toBe(201);
  return body;
}

const createPet = async (s: TestServer) =>
  (await s.api<{ id: number }>('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })).body;

async function deliveriesOf(s: TestServer, id: string): Promise<Delivery[]> {
  return (await s.api<Delivery[]>('GET', `/v1/webhooks/${id}/deliveries?limit=100`)).body;
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface WebhookOperation {
  parameters: { name: string }[];
}

/** Each request as the served document's top-level `webhooks` describes its type. */
async function expectDocumented(s: TestServer, r: Receiver) {
  const document = (await (await fetch(`${s.baseUrl}/openapi.json`)).json()) as {
    webhooks: Record<string, { post: WebhookOperation }>;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, 'openapi.json');
  for (const { headers, body } of r.received) {
    const parsed = JSON.parse(body) as { type: string };
    const validate = ajv.getSchema(
      `openapi.json#/webhooks/${parsed.type}/post/requestBody/content/application~1json/schema`,
    );
    expect(validate?.(parsed), `${body} ${ajv.errorsText(validate?.errors)}`).toBe(true);
    for (const { name } of document.webhooks[parsed.type]?.post.parameters ?? []) {
      expect(headers[name], name).toBeTruthy();
    }
  }
}

describe('webhook delivery', () => {
  it('sends every event type to every subscribed endpoint, signed, with the stream body', async () => {
    const s = await server();
    const all = await receiver();
    const petsOnly = await receiver();
    const allHook = await register(s, all.url);
    const petHook = await register(s, petsOnly.url, ['pet.created', 'pet.updated', 'pet.deleted']);
    const pet = await createPet(s);
    const order = await s.api<{ id: number }>('POST', '/v1/store/orders', {
      body: { petId: pet.id },
    });
    await s.api('PATCH', `/v1/store/orders/${order.body.id}`, { body: { status: 'cancelled' } });
    await s.api('PATCH', `/v1/pets/${pet.id}`, { body: { name: 'Max' } });
    await s.api('DELETE', `/v1/pets/${pet.id}`);
    const logged = await eventsAfter(s.database.handle.db, 0, 100);
    const types = new Set(logged.map((event) => event.type));
    expect(types.size).toBe(5);
    await all.waitFor(logged.length);
    await petsOnly.waitFor(logged.filter((event) => event.type.startsWith('pet.')).length);
    all.verifyAll(allHook.secret);
    petsOnly.verifyAll(petHook.secret);
    const bodies = all.received.map((r): [string | undefined, unknown] => [
      r.headers['webhook-id'],
      JSON.parse(r.body),
    ]);
    expect(new Map(bodies)).toEqual(
      new Map(
        logged.map((event) => [
          `evt_${event.id}`,
          { type: event.type, timestamp: event.occurredAt.toISOString(), data: event.data },
        ]),
      ),
    );
    expect(all.received[0]?.headers['user-agent']).toBe('petstore-webhooks/1.0');
    await expectDocumented(s, all);
  });

  it('retries a 500 on the schedule: three failures, then the 4th attempt succeeds', async () => {
    const s = await server();
    const flaky = await receiver((n) => (n < 3 ? 500 : 200));
    const hook = await register(s, flaky.url);
    await createPet(s);
    await flaky.waitFor(4);
    const ids = new Set(flaky.received.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const gaps = flaky.received.slice(1).map((r, i) => r.at - (flaky.received[i]?.at ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(150);
    const [delivery] = await eventually(
      () => deliveriesOf(s, hook.id),
      ([d]) => d?.status === 'succeeded',
    );
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 4, lastResponseStatus: 200 });
  });

  it('gives up after the schedule, and a 3xx is a failure, its redirect not followed', async () => {
    const s = await server();
    const target = await receiver();
    const moved = await receiver(() => 307);
    const hook = await register(s, moved.url);
    await createPet(s);
    const [delivery] = await eventually(
      () => deliveriesOf(s, hook.id),
      ([d]) => d?.status === 'failed',
    );
    expect(delivery).toMatchObject({ status: 'failed', attempts: 4, lastResponseStatus: 307 });
    expect(delivery?.lastError).toMatch(/redirect/);
    expect(target.count()).toBe(0);
  });

  it('disables an endpoint that answers 410', async () => {
    const s = await server();
    const gone = await receiver(() => 410);
    const hook = await register(s, gone.url);
    await createPet(s);
    const read = await eventually(
      async () => (await s.api<{ enabled: boolean }>('GET', `/v1/webhooks/${hook.id}`)).body,
      (endpoint) => !endpoint.enabled,
    );
    expect(read.enabled).toBe(false);
    await createPet(s);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(gone.count()).toBe(1);
  });

  it('disables an endpoint whose deliveries have all failed for 5 days', async () => {
    const s = await server();
    const failing = await receiver(() => 500);
    const hook = await register(s, failing.url);
    await executeRows(
      s.database.handle.db,
      sql`update webhook_endpoints set failing_since = now() - interval '5 days 1 minute'
        where id = ${hook.id}`,
    );
    await createPet(s);
    const read = await eventually(
      async () => (await s.api<{ enabled: boolean }>('GET', `/v1/webhooks/${hook.id}`)).body,
      (endpoint) => !endpoint.enabled,
    );
    expect(read.enabled).toBe(false);
  });

  it('looks for work on a commit and after each delivery, not only when the poll comes', async () => {
    // A poll of a minute: whatever arrives sooner came from a commit or a finished delivery.
    const pollMs = 60_000;
    const s = await server(2_000, pollMs);
    const r = await receiver();
    const hook = await register(s, r.url, ['pet.created']);
    for (let i = 0; i < 30; i++) await createPet(s);
    await r.waitFor(30, pollMs / 3);
    expect(r.received).toHaveLength(30);
    r.verifyAll(hook.secret);
  });

  it('times out a black-holed endpoint while a healthy one keeps receiving', async () => {
    // A healthy endpoint queued behind the hole would wait for the hole's attempts to time out;
    // half that timeout is the bound, generous on a loaded machine yet failing if it waited.
    // How fast deliveries are is the benchmark's to say, not a test's.
    const timeoutMs = 8_000;
    const s = await server(timeoutMs);
    // Twenty holes hold 200 slots, which once were every slot a process had.
    const holes = await Promise.all(Array.from({ length: 20 }, () => receiver(() => 'hang')));
    const hole = holes[0] as Receiver;
    const healthy = await receiver();
    const holeHook = await register(s, hole.url);
    for (const other of holes.slice(1)) await register(s, other.url);
    const hook = await register(s, healthy.url);
    // Past the timeout (15 s in production): each hole holds 10 slots until its first attempts
    // time out, then one while it fails.
    for (let i = 1; i <= 25; i++) {
      const sent = Date.now();
      await createPet(s);
      await healthy.waitFor(i, timeoutMs / 2);
      expect((healthy.received[i - 1]?.at ?? Infinity) - sent).toBeLessThan(timeoutMs / 2);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    healthy.verifyAll(hook.secret);
    const timedOut = await eventually(
      () => deliveriesOf(s, holeHook.id),
      (list) => list.some((d) => d.lastError === 'timed out'),
    );
    expect(timedOut.some((d) => d.lastError === 'timed out')).toBe(true);
    // Never more than 10 at once: the first ones and their retries, not all 25 at the start.
    expect(
      hole.received.filter((r) => r.at - (hole.received[0]?.at ?? 0) < 1_000).length,
    ).toBeLessThanOrEqual(10);
  }, 60_000);

  it('signs with both secrets after a rotation', async () => {
    const s = await server();
    const r = await receiver();
    const hook = await register(s, r.url);
    const rotated = await s.api<Created>('POST', `/v1/webhooks/${hook.id}/secret`);
    expect(rotated.status).toBe(200);
    await createPet(s);
    await r.waitFor(1);
    expect(r.received[0]?.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    r.verifyAll(hook.secret);
    r.verifyAll(rotated.body.secret);
  });
});
