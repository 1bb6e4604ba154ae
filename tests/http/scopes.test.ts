import { beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../server/domain/auth/issue-api-key.js';
import { newPet } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
let readKey: string;
let writeKey: string;

beforeAll(async () => {
  const db = server.database.handle.db;
  readKey = (await issueApiKey(db, { name: 'reader', scope: 'read' })).key;
  writeKey = (await issueApiKey(db, { name: 'writer', scope: 'write' })).key;
});

describe('a read key', () => {
  it('is refused createPet with 403 and the Error body', async () => {
    const response = await server.api('POST', '/v1/pets', { key: readKey, body: newPet() });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      code: 'FORBIDDEN',
      message: 'This API key is read-only',
      status: 403,
    });
  });

  it('is refused pets.create with 403 in the tRPC envelope', async () => {
    const response = await server.trpc('pets.create', newPet(), 'mutation', { key: readKey });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      error: { message: 'This API key is read-only', data: { code: 'FORBIDDEN', httpStatus: 403 } },
    });
  });

  it('is refused before the input is looked at', async () => {
    const response = await server.api('POST', '/v1/pets', { key: readKey, body: { bogus: true } });
    expect(response.status).toBe(403);
  });

  it('lists and reads on both surfaces', async () => {
    const created = await server.api<{ id: number }>('POST', '/v1/pets', {
      key: writeKey,
      body: newPet(),
    });
    expect((await server.api('GET', '/v1/pets', { key: readKey })).status).toBe(200);
    expect((await server.api('GET', `/v1/pets/${created.body.id}`, { key: readKey })).status).toBe(
      200,
    );
    const list = await server.trpc('pets.list', {}, 'query', { key: readKey });
    expect(list.status).toBe(200);
    const get = await server.trpc('pets.get', { petId: created.body.id }, 'query', {
      key: readKey,
    });
    expect(get.status).toBe(200);
  });
});

describe('a write key', () => {
  it('creates, lists and reads on both surfaces', async () => {
    const rest = await server.api<{ id: number }>('POST', '/v1/pets', {
      key: writeKey,
      body: newPet(),
    });
    expect(rest.status).toBe(201);
    const trpc = await server.trpc('pets.create', newPet(), 'mutation', { key: writeKey });
    expect(trpc.status).toBe(200);
    expect((await server.api('GET', '/v1/pets', { key: writeKey })).status).toBe(200);
    expect((await server.api('GET', `/v1/pets/${rest.body.id}`, { key: writeKey })).status).toBe(
      200,
    );
    expect((await server.trpc('pets.list', {}, 'query', { key: writeKey })).status).toBe(200);
  });
});
