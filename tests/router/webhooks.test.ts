import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneEvents } from '../../db/queries/events.js';
import { recordAttempts } from '../../server/webhooks/storage/attempts.js';
import { claimDeliveries, settledEvents } from '../../server/webhooks/storage/claim.js';
import { webhookSettings } from '../../server/webhooks/domain/settings.js';
import { callerFor, rejection } from '../helpers/caller.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { newPet, reader, writer } from '../helpers/factories.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const publicOnly = webhookSettings({ allowPrivate: false });
const anyAddress = webhookSettings({ allowPrivate: true });
const api = (webhooks = anyAddress, principal = writer) =>
  callerFor({ db: database.handle.db, principal, settings: { webhooks } }).caller;
/** What a worker's look leases: due retries and the events after each endpoint's cursor. */
const claim = async () => {
  const { db } = database.handle;
  return claimDeliveries(db, { limit: 100, leaseSeconds: 30, settled: await settledEvents(db) });
};

describe('webhook endpoints', () => {
  it('returns the secret at creation only, and manages the endpoint', async () => {
    const created = await api().webhooks.create({
      url: 'http://127.0.0.1:9/hook',
      types: ['pet.created'],
    });
    expect(created.id).toMatch(/^wh_/);
    expect(created.secret).toMatch(/^whsec_/);
    expect(Buffer.from(created.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const read = await api().webhooks.get({ webhookId: created.id });
    expect(read).not.toHaveProperty('secret');
    expect(read).toMatchObject({ enabled: true, types: ['pet.created'], description: null });
    const changed = await api().webhooks.update({
      webhookId: created.id,
      enabled: false,
      description: 'back office',
      types: null,
    });
    expect(changed).toMatchObject({ enabled: false, description: 'back office', types: null });
    expect((await api().webhooks.list({ limit: 100 })).map((w) => w.id)).toContain(created.id);
    // Every field of the list's input is optional, so the input is too.
    expect(Array.isArray(await api().webhooks.list())).toBe(true);
    await api().webhooks.delete({ webhookId: created.id });
    expect((await rejection(api().webhooks.get({ webhookId: created.id }))).code).toBe('NOT_FOUND');
  });

  it('needs the write scope to manage endpoints', async () => {
    const refused = api(anyAddress, reader).webhooks.create({ url: 'http://127.0.0.1:9/' });
    expect((await rejection(refused)).code).toBe('FORBIDDEN');
  });

  it.each([
    'http://example.com/hook',
    'https://127.0.0.1/hook',
    'https://[::1]/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:7f00:1]/hook',
    'https://2130706433/hook',
    'https://0x7f.1/hook',
    'https://10.0.0.1/hook',
    'https://[fd00:ec2::254]/hook',
    'https://[ff02::1]/hook',
    'https://0.0.0.0/hook',
    'https://localhost/hook',
    'https://user:pass@example.com/hook',
    'not a url',
  ])('refuses %s at registration with 400', async (url) => {
    expect((await rejection(api(publicOnly).webhooks.create({ url }))).code).toBe('BAD_REQUEST');
  });

  it('refuses a URL longer than 2,048 characters', async () => {
    const url = `https://example.com/${'a'.repeat(2048)}`;
    expect((await rejection(api(anyAddress).webhooks.create({ url }))).code).toBe('BAD_REQUEST');
  });
});

describe('deliveries', () => {
  it('makes one delivery per event and subscribed endpoint, once, after the endpoint exists', async () => {
    await api().pets.create(newPet());
    const onlyCreates = await api().webhooks.create({
      url: 'http://127.0.0.1:9/a',
      types: ['pet.created'],
    });
    const every = await api().webhooks.create({ url: 'http://127.0.0.1:9/b' });
    const pet = await api().pets.create(newPet());
    await api().pets.update({ petId: pet.id, status: 'pending' });
    await claim();
    expect(await claim()).toEqual([]);
    const listed = (id: string) => api().webhooks.deliveries({ webhookId: id, limit: 100 });
    expect((await listed(onlyCreates.id)).map((d) => d.type)).toEqual(['pet.created']);
    expect((await listed(every.id)).map((d) => d.type)).toEqual(['pet.updated', 'pet.created']);
    expect((await listed(every.id)).map((d) => d.status)).toEqual(['pending', 'pending']);
    for (const id of [onlyCreates.id, every.id]) await api().webhooks.delete({ webhookId: id });
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one', async () => {
    const endpoint = await api().webhooks.create({ url: 'http://127.0.0.1:9/r' });
    const rotated = await api().webhooks.rotateSecret({ webhookId: endpoint.id });
    const dayAgo = webhookSettings({
      allowPrivate: true,
      now: () => new Date(Date.now() - 25 * 3600e3),
    });
    await api().pets.create(newPet());
    const [first] = (await claim()).filter((d) => d.endpointId === endpoint.id);
    if (!first) throw new Error('the delivery was not claimed');
    expect(first.secrets).toEqual([rotated.secret, endpoint.secret]);
    await recordAttempts(database.handle.db, [
      { delivery: first, outcome: { status: 'failed', responseStatus: 500, error: null } },
    ]);
    const again = await api(dayAgo).webhooks.rotateSecret({ webhookId: endpoint.id });
    const retried = { webhookId: endpoint.id, deliveryId: first.id };
    expect(await api().webhooks.retryDelivery(retried)).toEqual({ scheduled: 1 });
    const [second] = (await claim()).filter((d) => d.endpointId === endpoint.id);
    expect(second?.secrets).toEqual([again.secret]);
    // The manual retry is the second attempt, not a first one again.
    expect(second?.attempts).toBe(2);
    await api().webhooks.delete({ webhookId: endpoint.id });
  });

  it('replays only what happened since the endpoint was created', async () => {
    await api().pets.create(newPet());
    const endpoint = await api().webhooks.create({ url: 'http://127.0.0.1:9/s' });
    await api().pets.create(newPet());
    await claim();
    const replayed = await api().webhooks.replay({ webhookId: endpoint.id, after: '0' });
    expect(replayed).toEqual({ scheduled: 1 });
    await api().webhooks.delete({ webhookId: endpoint.id });
  });

  it('keeps an event that a delivery still needs from retention', async () => {
    const endpoint = await api().webhooks.create({ url: 'http://127.0.0.1:9/k' });
    await api().pets.create(newPet());
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await claim();
    await pruneEvents(database.handle.db, 1, 10_000);
    const [kept] = await api().webhooks.deliveries({ webhookId: endpoint.id, limit: 1 });
    expect(kept?.status).toBe('pending');
    await api().webhooks.update({ webhookId: endpoint.id, enabled: false });
    const claimed = await claim();
    expect(claimed.filter((d) => d.endpointId === endpoint.id)).toEqual([]);
    // Disabled, it holds nothing back: the event goes, and its delivery with it.
    await pruneEvents(database.handle.db, 1, 10_000);
    expect(await api().webhooks.deliveries({ webhookId: endpoint.id, limit: 1 })).toEqual([]);
    await api().webhooks.delete({ webhookId: endpoint.id });
    const replayTarget = await api().webhooks.create({ url: 'http://127.0.0.1:9/p' });
    expect(await api().webhooks.replay({ webhookId: replayTarget.id, after: '0' })).toEqual({
      scheduled: 0,
    });
  });
});
