import { beforeAll, describe, expect, it } from 'vitest';
import type { PetStatus } from '../../db/queries/pets.js';
import { issueApiKey } from '../../server/domain/auth/issue-api-key.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { newPet } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';

/** updatePet and deletePet over REST and tRPC, end to end on a real server and database. */
const server = useTestServer();
let readKey: string;

beforeAll(async () => {
  readKey = (await issueApiKey(server.database.handle.db, { name: 'reader', scope: 'read' })).key;
});

/** The fields of an Error these tests read; a pet in a 200 is compared whole. */
type ErrorBody = { code: string; message: string; issues?: { path: string }[] };

async function created(status: PetStatus = 'available') {
  const response = await server.api<Pet>('POST', '/v1/pets', { body: newPet({ status }) });
  expect(response.status).toBe(201);
  return { pet: response.body, etag: response.headers.get('etag') };
}

/** What a fresh GET answers: status, body and ETag. */
async function read(petId: number) {
  const response = await server.api<Pet>('GET', `/v1/pets/${petId}`);
  return { status: response.status, body: response.body, etag: response.headers.get('etag') };
}

const patch = (petId: number, body: unknown, options: { headers?: Record<string, string> } = {}) =>
  server.api<ErrorBody>('PATCH', `/v1/pets/${petId}`, { body, ...options });

describe('PATCH /v1/pets/{petId} bodies', () => {
  it.each([
    'application/json',
    'application/merge-patch+json',
    'application/merge-patch+json; charset=utf-8',
  ])('takes a patch sent as %s', async (type) => {
    const { pet } = await created();
    const response = await patch(
      pet.id,
      { name: 'Patched' },
      { headers: { 'content-type': type } },
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...pet, name: 'Patched' });
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/json-patch+json'])(
    'refuses %s with 415 and changes nothing',
    async (type) => {
      const { pet } = await created();
      const before = await read(pet.id);
      const response = await patch(pet.id, { name: 'Nope' }, { headers: { 'content-type': type } });
      expect(response.status).toBe(415);
      expect(response.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(await read(pet.id)).toEqual(before);
    },
  );

  it.each([
    ['an empty patch', {}, undefined],
    ['a null name', { name: null }, 'name'],
    ['a null status', { status: null }, 'status'],
    ['an id', { id: 1, name: 'x' }, 'id'],
    ['an unknown field', { colour: 'brown' }, 'colour'],
    ['the path parameter', { petId: 1, name: 'x' }, 'petId'],
    ['a blank name', { name: ' ' }, 'name'],
    ['a category of 0', { categoryId: 0 }, 'categoryId'],
    ['an unknown status', { status: 'lost' }, 'status'],
    ['an array', [{ name: 'x' }], undefined],
  ])('refuses %s with 400 and changes nothing', async (_, body, field) => {
    const { pet } = await created();
    const before = await read(pet.id);
    const response = await patch(pet.id, body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('BAD_REQUEST');
    if (field) expect(response.body.issues?.map((issue) => issue.path)).toContain(field);
    expect(await read(pet.id)).toEqual(before);
  });

  it('refuses a body over 64 KiB with 413', async () => {
    const { pet } = await created();
    const response = await patch(pet.id, { name: 'x'.repeat(70_000) });
    expect(response.status).toBe(413);
  });
});

describe('the life cycle over REST', () => {
  it.each([
    ['sold', 'available'],
    ['sold', 'pending'],
  ] as const)('refuses %s to %s with 409 naming both, and no field changes', async (from, to) => {
    const { pet, etag } = await created(from);
    const response = await patch(pet.id, { status: to, name: 'Not renamed', categoryId: 42 });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('CONFLICT');
    expect(response.body.message).toContain(from);
    expect(response.body.message).toContain(to);
    expect(await read(pet.id)).toEqual({ status: 200, body: pet, etag });
  });

  it.each([
    ['available', 'pending'],
    ['available', 'sold'],
    ['pending', 'available'],
    ['pending', 'sold'],
  ] as const)('moves %s to %s', async (from, to) => {
    const { pet } = await created(from);
    const response = await patch(pet.id, { status: to });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...pet, status: to });
  });

  it('answers 404 for an unknown pet', async () => {
    const response = await patch(9_000_000, { name: 'Nobody' });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('NOT_FOUND');
  });
});

describe('DELETE /v1/pets/{petId}', () => {
  it('answers 204 without a body, then 404 to every later delete, get and patch', async () => {
    const { pet } = await created();
    const deleted = await server.api('DELETE', `/v1/pets/${pet.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    for (let attempt = 0; attempt < 2; attempt++) {
      const again = await server.api<ErrorBody>('DELETE', `/v1/pets/${pet.id}`);
      expect(again.status).toBe(404);
      expect(again.body.code).toBe('NOT_FOUND');
    }
    expect((await read(pet.id)).status).toBe(404);
    expect((await patch(pet.id, { name: 'Ghost' })).status).toBe(404);
  });

  it('removes the pet from every list, and never gives its id again', async () => {
    const { pet } = await created('pending');
    await server.api('DELETE', `/v1/pets/${pet.id}`);
    for (const query of ['limit=100', 'limit=100&status=pending']) {
      const listed = await server.api<Pet[]>('GET', `/v1/pets?${query}`);
      expect(listed.body.map((each) => each.id)).not.toContain(pet.id);
    }
    const page = await server.trpc<{ result: { data: { items: Pet[] } } }>(
      'pets.listPage',
      { limit: 100 },
      'query',
    );
    expect(page.body.result.data.items.map((each) => each.id)).not.toContain(pet.id);
    expect((await created()).pet.id).toBeGreaterThan(pet.id);
  });
});

describe('a read-only key', () => {
  it('is refused PATCH and DELETE with 403, and nothing changes', async () => {
    const { pet, etag } = await created();
    const patched = await server.api<ErrorBody>('PATCH', `/v1/pets/${pet.id}`, {
      key: readKey,
      body: { name: 'Read only' },
    });
    expect(patched.status).toBe(403);
    expect(patched.body.code).toBe('FORBIDDEN');
    const deleted = await server.api('DELETE', `/v1/pets/${pet.id}`, { key: readKey });
    expect(deleted.status).toBe(403);
    expect(await read(pet.id)).toEqual({ status: 200, body: pet, etag });
  });
});

type Envelope<T> = { result: { data: T } } & {
  error: { message: string; data: { code: string; httpStatus: number } };
};

describe('pets.update and pets.delete over tRPC', () => {
  const update = (input: unknown, headers: Record<string, string> = {}, key?: string) =>
    server.trpc<Envelope<Pet>>('pets.update', input, 'mutation', { headers, key });
  const remove = (input: unknown, headers: Record<string, string> = {}) =>
    server.trpc<Envelope<undefined>>('pets.delete', input, 'mutation', { headers });

  it('updates a pet and sends its new ETag', async () => {
    const { pet, etag } = await created();
    const response = await update({ petId: pet.id, name: 'Over tRPC', status: 'sold' });
    expect(response.status).toBe(200);
    expect(response.body.result.data).toEqual({ ...pet, name: 'Over tRPC', status: 'sold' });
    expect(response.headers.get('etag')).not.toBe(etag);
    expect((await read(pet.id)).etag).toBe(response.headers.get('etag'));
  });

  it('refuses a move the life cycle forbids with CONFLICT, naming both states', async () => {
    const { pet, etag } = await created('sold');
    const response = await update({ petId: pet.id, status: 'available', name: 'No' });
    expect(response.status).toBe(409);
    expect(response.body.error.data.code).toBe('CONFLICT');
    expect(response.body.error.message).toMatch(/sold.*available/);
    expect(await read(pet.id)).toEqual({ status: 200, body: pet, etag });
  });

  it('honours If-Match as REST does: a stale version is PRECONDITION_FAILED', async () => {
    const { pet, etag } = await created();
    await update({ petId: pet.id, name: 'Newer' });
    const stale = await update({ petId: pet.id, name: 'Older' }, { 'if-match': etag ?? '' });
    expect(stale.status).toBe(412);
    expect(stale.body.error.data.code).toBe('PRECONDITION_FAILED');
    const staleDelete = await remove({ petId: pet.id }, { 'if-match': etag ?? '' });
    expect(staleDelete.status).toBe(412);
    expect((await read(pet.id)).body.name).toBe('Newer');
  });

  it('deletes once, then answers NOT_FOUND; a read key is FORBIDDEN', async () => {
    const { pet } = await created();
    const forbidden = await update({ petId: pet.id, name: 'x' }, {}, readKey);
    expect(forbidden.body.error.data.code).toBe('FORBIDDEN');
    const deleted = await remove({ petId: pet.id });
    expect(deleted.status).toBe(200);
    expect(deleted.body.result.data).toBeUndefined();
    const again = await remove({ petId: pet.id });
    expect(again.status).toBe(404);
    expect(again.body.error.data.code).toBe('NOT_FOUND');
    expect((await update({ petId: pet.id, name: 'x' })).status).toBe(404);
  });
});
