import { describe, expect, it } from 'vitest';
import type { PetStatus } from '../../db/queries/pets.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { newPet } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';

/** ETags, If-Match and If-None-Match over REST, end to end. */
const server = useTestServer();

const MISSING = 9_000_000;

async function created(status: PetStatus = 'available') {
  const response = await server.api<Pet>('POST', '/v1/pets', { body: newPet({ status }) });
  expect(response.status).toBe(201);
  return { pet: response.body, etag: response.headers.get('etag') ?? '' };
}

/** The pet and its ETag as a fresh GET sees them. */
async function read(petId: number) {
  const response = await server.api<Pet>('GET', `/v1/pets/${petId}`);
  return { status: response.status, pet: response.body, etag: response.headers.get('etag') };
}

const patch = (petId: number, body: unknown, ifMatch?: string) =>
  server.api<Pet>('PATCH', `/v1/pets/${petId}`, {
    body,
    headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
  });

describe('ETag', () => {
  it('is strong, on create and get alike, and changes with every change of the pet', async () => {
    const { pet, etag } = await created();
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await read(pet.id)).etag).toBe(etag);

    const renamed = await patch(pet.id, { name: 'Renamed' }, etag);
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...pet, name: 'Renamed' });
    const second = renamed.headers.get('etag');
    expect(second).toMatch(/^"[^"]+"$/);
    expect(second).not.toBe(etag);
    expect(await read(pet.id)).toEqual({ status: 200, pet: renamed.body, etag: second });

    const moved = await patch(pet.id, { status: 'pending' }, second ?? '');
    expect(moved.status).toBe(200);
    expect(new Set([etag, second, moved.headers.get('etag')]).size).toBe(3);
  });

  it('stays the same when a patch changes nothing', async () => {
    const { pet, etag } = await created('sold');
    const same = await patch(pet.id, { status: 'sold', name: pet.name }, etag);
    expect(same.status).toBe(200);
    expect(same.body).toEqual(pet);
    expect(same.headers.get('etag')).toBe(etag);
  });
});

describe('If-Match on PATCH and DELETE', () => {
  it('refuses a stale version with 412 and changes nothing', async () => {
    const { pet, etag } = await created();
    const current = (await patch(pet.id, { name: 'Moved on' }, etag)).headers.get('etag');
    const before = await read(pet.id);

    const stale = await patch(pet.id, { name: 'Lost update', status: 'sold' }, etag);
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 'PRECONDITION_FAILED', status: 412 });
    expect(stale.headers.get('etag')).toBeNull();
    const staleDelete = await server.api('DELETE', `/v1/pets/${pet.id}`, {
      headers: { 'if-match': etag },
    });
    expect(staleDelete.status).toBe(412);
    expect(await read(pet.id)).toEqual(before);
    expect(before.etag).toBe(current);
  });

  it('compares strongly: a weak tag of the current version does not match', async () => {
    const { pet, etag } = await created();
    expect((await patch(pet.id, { name: 'Weak' }, `W/${etag}`)).status).toBe(412);
    expect((await read(pet.id)).pet.name).toBe(pet.name);
  });

  it('accepts a list naming the current version, and * for a pet that exists', async () => {
    const { pet, etag } = await created();
    const listed = await patch(pet.id, { name: 'Listed' }, `"0.0", ${etag}`);
    expect(listed.status).toBe(200);
    const any = await patch(pet.id, { name: 'Any' }, '*');
    expect(any.status).toBe(200);
    expect(any.body.name).toBe('Any');
  });

  it('answers 412 to * for a missing pet, and 404 without If-Match', async () => {
    expect((await patch(MISSING, { name: 'x' }, '*')).status).toBe(412);
    expect((await patch(MISSING, { name: 'x' }, '"1.1"')).status).toBe(412);
    expect((await patch(MISSING, { name: 'x' })).status).toBe(404);
    const del = (ifMatch?: string) =>
      server.api('DELETE', `/v1/pets/${MISSING}`, {
        headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
      });
    expect((await del('*')).status).toBe(412);
    expect((await del()).status).toBe(404);
  });

  it('deletes the version named, and then * no longer matches', async () => {
    const { pet, etag } = await created();
    const deleted = await server.api('DELETE', `/v1/pets/${pet.id}`, {
      headers: { 'if-match': etag },
    });
    expect(deleted.status).toBe(204);
    expect((await patch(pet.id, { name: 'Ghost' }, '*')).status).toBe(412);
  });
});

/** RFC 9110 §13.1.2: on a change, a matching If-None-Match (or `*` for a pet that exists) is 412. */
describe('If-None-Match on PATCH and DELETE', () => {
  const change = (method: 'PATCH' | 'DELETE', petId: number, ifNoneMatch: string) =>
    server.api(method, `/v1/pets/${petId}`, {
      body: method === 'PATCH' ? { name: 'Changed' } : undefined,
      headers: { 'if-none-match': ifNoneMatch },
    });

  it.each(['PATCH', 'DELETE'] as const)(
    '%s: refuses * for a pet that exists with 412, and changes nothing',
    async (method) => {
      const { pet, etag } = await created();
      const response = await change(method, pet.id, '*');
      expect(response.status).toBe(412);
      expect(response.body).toMatchObject({ code: 'PRECONDITION_FAILED', status: 412 });
      expect(await read(pet.id)).toEqual({ status: 200, pet, etag });
    },
  );

  it.each(['PATCH', 'DELETE'] as const)(
    '%s: refuses a list naming the current version, weakly compared, with 412',
    async (method) => {
      const { pet, etag } = await created();
      expect((await change(method, pet.id, `"0.0", W/${etag}`)).status).toBe(412);
      expect(await read(pet.id)).toEqual({ status: 200, pet, etag });
    },
  );

  it('lets the change through when no tag names the current version', async () => {
    const { pet } = await created();
    expect((await change('PATCH', pet.id, '"0.0"')).status).toBe(200);
    expect((await change('DELETE', pet.id, '"0.0"')).status).toBe(204);
  });

  it('answers 404 to * for a missing pet: the condition holds, the pet is not there', async () => {
    expect((await change('PATCH', MISSING, '*')).status).toBe(404);
    expect((await change('DELETE', MISSING, '*')).status).toBe(404);
  });
});

describe('If-None-Match on GET', () => {
  const get = (petId: number, ifNoneMatch: string) =>
    server.api<Pet | undefined>('GET', `/v1/pets/${petId}`, {
      headers: { 'if-none-match': ifNoneMatch },
    });

  it.each([
    ['the current ETag', (etag: string) => etag],
    ['*', () => '*'],
    ['the weak form of the current ETag', (etag: string) => `W/${etag}`],
    ['a list that holds it', (etag: string) => `"0.0", W/"1.9", ${etag}`],
  ])('answers 304 without a body to %s, with the ETag', async (_, field) => {
    const { pet, etag } = await created();
    const response = await get(pet.id, field(etag));
    expect(response.status).toBe(304);
    expect(response.body).toBeUndefined();
    expect(response.headers.get('etag')).toBe(etag);
  });

  it('answers 200 with the pet once it changed', async () => {
    const { pet, etag } = await created();
    const changed = await patch(pet.id, { categoryId: 77 });
    const response = await get(pet.id, etag);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...pet, categoryId: 77 });
    expect(response.headers.get('etag')).toBe(changed.headers.get('etag'));
  });

  it('answers 404 for a missing pet, whatever it names', async () => {
    expect((await get(MISSING, '*')).status).toBe(404);
  });
});

describe('two clients changing the same pet with the ETag each read', () => {
  it('lets exactly one win; the other gets 412 and reads the winner', async () => {
    const { pet, etag } = await created();
    const [first, second] = await Promise.all([
      patch(pet.id, { name: 'First' }, etag),
      patch(pet.id, { name: 'Second' }, etag),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 412]);
    const winner = first.status === 200 ? first : second;
    expect(await read(pet.id)).toEqual({
      status: 200,
      pet: winner.body,
      etag: winner.headers.get('etag'),
    });
  });
});

describe('an idempotent create, retried after the pet changed', () => {
  it('replays the first answer: same body, ETag and Location, marked replayed', async () => {
    const body = newPet();
    const headers = { 'idempotency-key': 'versions-replay' };
    const post = () => server.api<Pet>('POST', '/v1/pets', { body, headers });
    const first = await post();
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const sent = {
      body: first.body,
      etag: first.headers.get('etag'),
      location: first.headers.get('location'),
    };

    const changed = await patch(first.body.id, { name: 'Changed', status: 'sold' });
    expect(changed.status).toBe(200);
    const deleted = () => server.api('DELETE', `/v1/pets/${first.body.id}`);
    for (const between of [() => Promise.resolve(), deleted]) {
      await between();
      const replay = await post();
      expect(replay.status).toBe(201);
      expect({
        body: replay.body,
        etag: replay.headers.get('etag'),
        location: replay.headers.get('location'),
      }).toEqual(sent);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    }
    const named = await server.api<Pet[]>('GET', '/v1/pets?limit=100');
    expect(named.body.filter((pet) => pet.name === body.name)).toEqual([]);
  });
});
