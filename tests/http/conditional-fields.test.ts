import { describe, expect, it } from 'vitest';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { newPet } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';

/** RFC 9110 §13.1: `*` alone or a list of entity-tags; anything else is 400 and changes nothing. */
const server = useTestServer();

const MALFORMED = [
  'nonsense*',
  'W/*',
  '"1", *',
  '*, "1"',
  '**',
  '"unterminated',
  'W/"unterminated',
  'bare-token',
  '"a" "b"',
  '"a";"b"',
  'w/"lowercase-weak"',
  '"in"side"',
  ',',
];

async function created() {
  const response = await server.api<Pet>('POST', '/v1/pets', { body: newPet() });
  expect(response.status).toBe(201);
  return { pet: response.body, etag: response.headers.get('etag') ?? '' };
}

const read = (petId: number) => server.api<Pet>('GET', `/v1/pets/${petId}`);

describe('If-Match on PATCH /v1/pets/{petId} and DELETE', () => {
  it.each(MALFORMED)('answers 400 to %j and changes nothing', async (field) => {
    const { pet, etag } = await created();
    const patched = await server.api('PATCH', `/v1/pets/${pet.id}`, {
      body: { name: 'Changed' },
      headers: { 'if-match': field },
    });
    expect(patched.status).toBe(400);
    expect(patched.body).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    const deleted = await server.api('DELETE', `/v1/pets/${pet.id}`, {
      headers: { 'if-match': field },
    });
    expect(deleted.status).toBe(400);
    const after = await read(pet.id);
    expect(after.body).toEqual(pet);
    expect(after.headers.get('etag')).toBe(etag);
  });

  it('answers 400 for a missing pet too: the field is read before the pet', async () => {
    const response = await server.api('DELETE', '/v1/pets/9000000', {
      headers: { 'if-match': 'W/*' },
    });
    expect(response.status).toBe(400);
  });

  it('answers 400 on pets.update over tRPC as well', async () => {
    const { pet } = await created();
    const response = await server.trpc(
      'pets.update',
      { petId: pet.id, name: 'Changed' },
      'mutation',
      { headers: { 'if-match': 'nonsense*' } },
    );
    expect(response.status).toBe(400);
    expect((await read(pet.id)).body).toEqual(pet);
  });

  it('accepts tags that hold a comma or a star, and empty list elements', async () => {
    const { pet, etag } = await created();
    const response = await server.api<Pet>('PATCH', `/v1/pets/${pet.id}`, {
      body: { name: 'Listed' },
      headers: { 'if-match': `"a,b", W/"*", , ${etag}` },
    });
    expect(response.status).toBe(200);
  });
});

describe('If-None-Match on GET /v1/pets/{petId}', () => {
  it.each(MALFORMED)('answers 400 to %j', async (field) => {
    const { pet } = await created();
    const response = await server.api('GET', `/v1/pets/${pet.id}`, {
      headers: { 'if-none-match': field },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });
});
