import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const server = useTestServer();

interface TrpcError {
  error: {
    message: string;
    data: { code: string; httpStatus: number; issues?: { path: string }[] };
  };
}

async function post(path: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${server.origin}/trpc/${path}`, { method: 'POST', headers, body });
  expect(response.headers.get('x-request-id')).toBeTruthy();
  const envelope = (await response.json()) as TrpcError;
  expect(envelope.error.data.httpStatus).toBe(response.status);
  return { status: response.status, envelope };
}

const json = { 'content-type': 'application/json' };
const authed = { ...json, authorization: `Bearer ${TEST_KEY}` };

/** The contract's error rows, on the tRPC surface, in tRPC's own error envelope. */
describe('POST /trpc/pets.create', () => {
  it('answers malformed JSON without a key with 401, not 400', async () => {
    const { status, envelope } = await post('pets.create', '{"name":', json);
    expect(status).toBe(401);
    expect(envelope.error.data.code).toBe('UNAUTHORIZED');
  });

  it('answers malformed JSON with a key with 400', async () => {
    const { status, envelope } = await post('pets.create', '{"name":', authed);
    expect(status).toBe(400);
    expect(envelope.error.data.code).toBe('BAD_REQUEST');
  });

  it('answers "categoryId": "3" with 400 naming categoryId', async () => {
    const { status, envelope } = await post(
      'pets.create',
      JSON.stringify({ name: 'Rex', categoryId: '3' }),
      authed,
    );
    expect(status).toBe(400);
    expect(envelope.error.data.issues?.map((issue) => issue.path)).toEqual(['categoryId']);
  });

  it('answers a 70 KiB body with 413', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(70 * 1024), categoryId: 1 });
    const { status } = await post('pets.create', body, authed);
    expect(status).toBe(413);
  });

  it('never takes the unread rest of a refused body for the next request', async () => {
    // A body past 64 KiB whose unread tail is a request of its own.
    const smuggled = `GET /trpc/pets.list HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\n\r\n`;
    const body = JSON.stringify({ name: 'x'.repeat(70 * 1024), categoryId: 1 }) + smuggled;
    const socket = connect(Number(new URL(server.origin).port), '127.0.0.1');
    socket.on('error', () => undefined);
    // A connection left open waiting for the rest of the body would hang here otherwise.
    socket.setTimeout(5_000, () => socket.destroy());
    let reply = '';
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString('latin1')));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      `POST /trpc/pets.create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
        body,
    );
    await closed;
    expect(reply.match(/^HTTP\/1\.1 \d+/gm)).toEqual(['HTTP/1.1 413']);
    expect(reply).toMatch(/^connection: close\r$/im);
  });

  it('answers a non-JSON content type with 415', async () => {
    const { status } = await post('pets.create', 'name=Rex', {
      ...authed,
      'content-type': 'text/plain',
    });
    expect(status).toBe(415);
  });

  it('answers an unknown procedure with 404', async () => {
    const { status, envelope } = await post('pets.adopt', '{}', authed);
    expect(status).toBe(404);
    expect(envelope.error.data.code).toBe('NOT_FOUND');
  });
});
