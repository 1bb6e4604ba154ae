import { beforeAll, describe, expect, it } from 'vitest';
import type { PetStatus } from '../../db/queries/pets.js';
import { issueApiKey } from '../../server/domain/auth/issue-api-key.js';
import type { Order } from '../../server/domain/schemas/order.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { newPet } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';

/** Store orders over REST and tRPC, end to end, and what they do to their pets. */
const server = useTestServer();
let readKey: string;

beforeAll(async () => {
  readKey = (await issueApiKey(server.database.handle.db, { name: 'reader', scope: 'read' })).key;
});

type ErrorBody = { code: string; message: string; issues?: { path: string }[] };

async function petWith(status: PetStatus = 'available'): Promise<Pet> {
  return (await server.api<Pet>('POST', '/v1/pets', { body: newPet({ status }) })).body;
}

const place = (body: unknown, options: { headers?: Record<string, string>; key?: string } = {}) =>
  server.api<Order & ErrorBody>('POST', '/v1/store/orders', { body, ...options });

const move = (orderId: number, status: string) =>
  server.api<Order & ErrorBody>('PATCH', `/v1/store/orders/${orderId}`, { body: { status } });

const petStatus = async (petId: number) =>
  (await server.api<Pet>('GET', `/v1/pets/${petId}`)).body.status;

async function placed(): Promise<{ pet: Pet; order: Order }> {
  const pet = await petWith();
  const response = await place({ petId: pet.id });
  expect(response.status).toBe(201);
  return { pet, order: response.body };
}

describe('POST /v1/store/orders', () => {
  it('places an order: 201, its Location, and the pet pending at a new version', async () => {
    const pet = await petWith();
    const etag = (await server.api('GET', `/v1/pets/${pet.id}`)).headers.get('etag') ?? '';
    const response = await place({ petId: pet.id });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ petId: pet.id, status: 'placed' });
    expect(response.body.updatedAt).toBe(response.body.placedAt);
    const location = response.headers.get('location');
    expect(location).toBe(`${server.baseUrl}/store/orders/${response.body.id}`);
    const got = await server.api<Order>('GET', new URL(location ?? '').pathname);
    expect(got.body).toEqual(response.body);
    expect(await petStatus(pet.id)).toBe('pending');
    const stale = await server.api('PATCH', `/v1/pets/${pet.id}`, {
      body: { name: 'Written before the order' },
      headers: { 'if-match': etag },
    });
    expect(stale.status).toBe(412);
  });

  it('refuses a pet that is pending or sold with 409, and places nothing', async () => {
    const { pet, order } = await placed();
    const again = await place({ petId: pet.id });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('pending');
    const sold = await place({ petId: (await petWith('sold')).id });
    expect(sold.status).toBe(409);
    const forPet = await server.api<Order[]>('GET', `/v1/store/orders?petId=${pet.id}`);
    expect(forPet.body).toEqual([order]);
  });

  it('refuses a pet that does not exist, or no longer, with 422', async () => {
    expect((await place({ petId: 9_000_000 })).status).toBe(422);
    const pet = await petWith();
    expect((await server.api('DELETE', `/v1/pets/${pet.id}`)).status).toBe(204);
    const deleted = await place({ petId: pet.id });
    expect(deleted.status).toBe(422);
    expect(deleted.body.code).toBe('UNPROCESSABLE_CONTENT');
  });

  it.each([
    ['no petId', {}, 400],
    ['a petId that is text', { petId: '1' }, 400],
    ['an unknown field', { petId: 1, note: 'x' }, 400],
    ['a body over 64 KiB', { petId: 1, note: 'x'.repeat(70_000) }, 413],
  ])('refuses %s', async (_, body, status) => {
    expect((await place(body)).status).toBe(status);
  });

  it('refuses a body that is not JSON with 415', async () => {
    const pet = await petWith();
    const response = await place(JSON.stringify({ petId: pet.id }), {
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(415);
    expect(await petStatus(pet.id)).toBe('available');
  });

  it('replays an order for the same Idempotency-Key and refuses the key for another pet', async () => {
    const pet = await petWith();
    const headers = { 'idempotency-key': 'http-orders-once' };
    const first = await place({ petId: pet.id }, { headers });
    expect(first.status).toBe(201);
    expect((await move(first.body.id, 'approved')).status).toBe(200);
    const replay = await place({ petId: pet.id }, { headers });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const other = await place({ petId: (await petWith()).id }, { headers });
    expect(other.status).toBe(422);
  });
});

describe('PATCH /v1/store/orders/{orderId}', () => {
  it('approves and delivers: the pet is sold; delivered is final', async () => {
    const { pet, order } = await placed();
    const approved = await move(order.id, 'approved');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id: order.id, status: 'approved' });
    expect(await petStatus(pet.id)).toBe('pending');
    expect((await move(order.id, 'delivered')).body.status).toBe('delivered');
    expect(await petStatus(pet.id)).toBe('sold');
    const refused = await move(order.id, 'cancelled');
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/delivered.*cancelled/);
  });

  it('cancels: the pet is available and can be ordered again; cancelled is final', async () => {
    const { pet, order } = await placed();
    expect((await move(order.id, 'cancelled')).status).toBe(200);
    expect(await petStatus(pet.id)).toBe('available');
    const refused = await move(order.id, 'approved');
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/cancelled.*approved/);
    expect((await place({ petId: pet.id })).status).toBe(201);
  });

  it('refuses to go back to placed with 409, and answers the same status with no change', async () => {
    const { order } = await placed();
    const same = await move(order.id, 'placed');
    expect(same.status).toBe(200);
    expect(same.body).toEqual(order);
    await move(order.id, 'approved');
    expect((await move(order.id, 'placed')).status).toBe(409);
  });

  it.each([
    ['an unknown status', { status: 'lost' }, 400],
    ['no status', {}, 400],
    ['the path parameter', { orderId: 1, status: 'approved' }, 400],
  ])('refuses %s', async (_, body, status) => {
    const { order } = await placed();
    const response = await server.api('PATCH', `/v1/store/orders/${order.id}`, { body });
    expect(response.status).toBe(status);
    expect((await server.api<Order>('GET', `/v1/store/orders/${order.id}`)).body).toEqual(order);
  });

  it('answers 404 for an unknown order, on get and on patch', async () => {
    expect((await server.api('GET', '/v1/store/orders/9000000')).status).toBe(404);
    expect((await move(9_000_000, 'approved')).status).toBe(404);
    expect((await server.api('GET', '/v1/store/orders/zero')).status).toBe(400);
  });
});

describe('an open order holds its pet', () => {
  it('refuses status changes and deletes with 409, but not a new name', async () => {
    const { pet, order } = await placed();
    for (const status of ['available', 'sold']) {
      const response = await server.api<ErrorBody>('PATCH', `/v1/pets/${pet.id}`, {
        body: { status },
      });
      expect(response.status).toBe(409);
      expect(response.body.message).toContain('open order');
    }
    expect((await server.api('DELETE', `/v1/pets/${pet.id}`)).status).toBe(409);
    const renamed = await server.api<Pet>('PATCH', `/v1/pets/${pet.id}`, {
      body: { name: 'Reserved', status: 'pending' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...pet, name: 'Reserved', status: 'pending' });

    await move(order.id, 'cancelled');
    expect((await server.api('DELETE', `/v1/pets/${pet.id}`)).status).toBe(204);
  });
});

describe('a read-only key', () => {
  it('may read orders but not place or move them (403)', async () => {
    const { pet, order } = await placed();
    expect((await place({ petId: pet.id }, { key: readKey })).status).toBe(403);
    const moved = await server.api('PATCH', `/v1/store/orders/${order.id}`, {
      key: readKey,
      body: { status: 'cancelled' },
    });
    expect(moved.status).toBe(403);
    expect((await server.api('GET', `/v1/store/orders/${order.id}`, { key: readKey })).status).toBe(
      200,
    );
    expect((await server.api('GET', '/v1/store/orders', { key: readKey })).status).toBe(200);
    expect(await petStatus(pet.id)).toBe('pending');
  });
});

type Envelope<T> = { result: { data: T } } & {
  error: { message: string; data: { code: string; httpStatus: number } };
};

describe('the same orders over tRPC', () => {
  const call = <T>(procedure: string, input: unknown, kind: 'query' | 'mutation', key?: string) =>
    server.trpc<Envelope<T>>(procedure, input, kind, { key });

  it('places, gets and moves an order, and answers the errors by their codes', async () => {
    const pet = await petWith();
    const order = (await call<Order>('orders.place', { petId: pet.id }, 'mutation')).body.result
      .data;
    expect(order).toMatchObject({ petId: pet.id, status: 'placed' });
    const taken = await call('orders.place', { petId: pet.id }, 'mutation');
    expect(taken.body.error.data).toMatchObject({ code: 'CONFLICT', httpStatus: 409 });
    const missing = await call('orders.place', { petId: 9_000_000 }, 'mutation');
    expect(missing.body.error.data.code).toBe('UNPROCESSABLE_CONTENT');
    const got = await call<Order>('orders.get', { orderId: order.id }, 'query');
    expect(got.body.result.data).toEqual(order);
    const unknown = await call('orders.get', { orderId: 9_000_000 }, 'query');
    expect(unknown.body.error.data.code).toBe('NOT_FOUND');

    const forbidden = await call(
      'orders.update',
      { orderId: order.id, status: 'approved' },
      'mutation',
      readKey,
    );
    expect(forbidden.body.error.data.code).toBe('FORBIDDEN');
    const delivered = await call<Order>(
      'orders.update',
      { orderId: order.id, status: 'delivered' },
      'mutation',
    );
    expect(delivered.body.error.data.code).toBe('CONFLICT');
    for (const status of ['approved', 'delivered']) {
      const moved = await call<Order>('orders.update', { orderId: order.id, status }, 'mutation');
      expect(moved.body.result.data.status).toBe(status);
    }
    expect(await petStatus(pet.id)).toBe('sold');
  });
});
