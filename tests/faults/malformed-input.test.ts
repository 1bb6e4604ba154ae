import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

function rawRequest(text: string): Promise<string> {
  const url = new URL(server.origin);
  return new Promise((resolve, reject) => {
    let reply = '';
    const socket = connect(Number(url.port), url.hostname, () => socket.end(text));
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      resolve(reply);
    });
  });
}

describe('malformed input at the edges of JSON and HTTP', () => {
  it('answers 10,000 levels of nesting with 400', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    for (const body of [deep, `{"name":${deep},"categoryId":1}`, '{"a":'.repeat(10_000)]) {
      const response = await server.api<{ status: number }>('POST', '/v1/pets', { body });
      expect(response.status).toBe(400);
    }
  });

  it.each([
    ['1e309', 'categoryId'],
    ['9007199254740993', 'categoryId'],
    ['123456789012345678901234567890', 'categoryId'],
    ['-0', 'categoryId'],
    ['1.5', 'categoryId'],
  ])(
    'answers the oversized or non-integer number %s with 400 naming the field',
    async (raw, field) => {
      const response = await server.api<{ issues: { path: string }[] }>('POST', '/v1/pets', {
        body: `{"name":"Rex","categoryId":${raw}}`,
      });
      expect(response.status).toBe(400);
      expect(response.body.issues.map((issue) => issue.path)).toContain(field);
    },
  );

  it('keeps the last of duplicate keys, as JSON.parse does (a documented decision)', async () => {
    const response = await server.api<{ name: string; categoryId: number }>('POST', '/v1/pets', {
      body: '{"name":"first","name":"last","categoryId":1,"categoryId":2}',
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name: 'last', categoryId: 2 });
  });

  it('answers headers over 16 KiB with 431 from node and closes the connection', async () => {
    const reply = await rawRequest(
      `GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 431 /);
    expect(reply).toMatch(/connection: close/i);
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
  });
});
