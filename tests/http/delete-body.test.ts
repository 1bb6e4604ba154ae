import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { newPet } from '../helpers/factories.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

/** DELETE takes no body: one sent is refused as other bodies are, and nothing is deleted. */
const server = useTestServer();

async function created(): Promise<Pet> {
  const response = await server.api<Pet>('POST', '/v1/pets', { body: newPet() });
  expect(response.status).toBe(201);
  return response.body;
}

async function expectKept(pet: Pet) {
  const response = await server.api<Pet>('GET', `/v1/pets/${pet.id}`);
  expect(response.status).toBe(200);
  expect(response.body).toEqual(pet);
}

describe('DELETE /v1/pets/{petId} with a body', () => {
  it.each([
    ['a text/plain body', 415, 'text/plain', 'please delete'],
    ['malformed JSON', 400, 'application/json', '{"name":'],
    ['a JSON body', 400, 'application/json', '{}'],
    ['a body of 1 MiB', 413, 'application/json', '"x"'.padEnd(1024 * 1024, ' ')],
  ])('answers %s with %i and deletes nothing', async (_, status, type, body) => {
    const pet = await created();
    const response = await server.api('DELETE', `/v1/pets/${pet.id}`, {
      body,
      headers: { 'content-type': type },
    });
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ status });
    await expectKept(pet);
  });

  it('refuses a chunked body, which declares no length', async () => {
    const pet = await created();
    const url = `${server.origin}/v1/pets/${pet.id}`;
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{}'));
        controller.close();
      },
    });
    const response = await fetch(url, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    });
    const result = {
      status: response.status,
      headers: response.headers,
      body: JSON.parse(await response.text()) as unknown,
    };
    server.conformance.check('DELETE', url, result);
    expect(result.status).toBe(400);
    await expectKept(pet);
  });

  it('deletes with an empty body, declared or not', async () => {
    const pet = await created();
    const response = await server.api('DELETE', `/v1/pets/${pet.id}`, {
      headers: { 'content-type': 'text/plain', 'content-length': '0' },
    });
    expect(response.status).toBe(204);
    expect((await server.api('DELETE', `/v1/pets/${(await created()).id}`)).status).toBe(204);
  });
});

/** A GET with a body, which fetch cannot send. */
function getWithBody(path: string, body: string) {
  const url = `${server.origin}${path}`;
  return new Promise<{ status: number; headers: Headers; body: unknown }>((resolve, reject) => {
    const sent = request(url, {
      method: 'GET',
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': 'application/json',
        // node sends a GET's body unframed unless told its length.
        'content-length': Buffer.byteLength(body),
      },
    });
    sent.on('error', reject);
    sent.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (typeof value === 'string') headers.set(name, value);
        }
        const result = {
          status: response.statusCode ?? 0,
          headers,
          body: JSON.parse(text) as unknown,
        };
        server.conformance.check('GET', url, result);
        resolve(result);
      });
    });
    sent.end(body);
  });
}

describe('GET with a body', () => {
  it('is 400 on every REST read, unread, and closes the connection', async () => {
    const pet = await created();
    for (const path of [`/v1/pets/${pet.id}`, '/v1/pets?limit=1', '/v1/store/inventory']) {
      const response = await getWithBody(path, '{"limit":1}');
      expect(response.status, path).toBe(400);
      expect(response.body).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
      expect(response.headers.get('connection')).toBe('close');
    }
  });
});
