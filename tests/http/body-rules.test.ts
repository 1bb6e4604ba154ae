import { IncomingMessage } from 'node:http';
import { connect, Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { readJsonBody } from '../../server/surfaces/http/pipeline/body.js';
import type { ApiResponse } from '../helpers/http.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const server = useTestServer();

/** Where a create's body is read: REST, a plain tRPC call, and a batch for tRPC's adapter. */
const SURFACES = [
  ['POST /v1/pets', '/v1/pets'],
  ['POST /trpc/pets.create', '/trpc/pets.create'],
  ['a tRPC batch', '/trpc/pets.create?batch=1'],
] as const;

/** A body of the batch surface holds its one input under "0". */
function framed(path: string, json: string): string {
  return path.includes('batch=1') ? `{"0":${json}}` : json;
}

/** Sends `bytes` as they are, and checks the answer against the served document. */
async function send(
  path: string,
  bytes: Uint8Array,
  headers: Record<string, string> = {},
): Promise<ApiResponse<{ message?: string; error?: { message: string } }>> {
  const url = `${server.origin}${path}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TEST_KEY}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: bytes,
  });
  const result = {
    status: response.status,
    headers: response.headers,
    body: JSON.parse(await response.text()) as { message?: string; error?: { message: string } },
  };
  if (path.startsWith('/trpc/')) server.conformance.checkTrpc(url, result);
  else server.conformance.check('POST', url, result);
  return result;
}

/** The error message on either surface; a batch answers with one envelope per call. */
function messageOf(response: ApiResponse): string | undefined {
  const body = (Array.isArray(response.body) ? response.body[0] : response.body) as {
    message?: string;
    error?: { message: string };
  };
  return body.error?.message ?? body.message;
}

const pet = (name: string) => JSON.stringify({ name, categoryId: 1 });

describe.each(SURFACES)('the body rules on %s', (_, path) => {
  it('refuses a charset other than UTF-8 with 415, storing nothing', async () => {
    const latin1 = Buffer.from(framed(path, pet('lat\u00e9')), 'latin1');
    const response = await send(path, latin1, {
      'content-type': 'application/json; charset=latin1',
    });
    expect(response.status).toBe(415);
  });

  it('refuses bytes that are not UTF-8 with 400, never storing U+FFFD', async () => {
    const [head = '', tail = ''] = framed(path, pet('BAD')).split('BAD');
    const bytes = Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xfe]), Buffer.from(tail)]);
    const response = await send(path, bytes);
    expect(response.status).toBe(400);
    expect(messageOf(response)).toBe('Request body is not valid UTF-8');
  });

  it.each([
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
    ['deflate', deflateSync],
    ['x-unknown', (bytes: Buffer) => bytes],
  ])('refuses Content-Encoding: %s with 415 naming the coding', async (coding, encode) => {
    const body = encode(Buffer.from(framed(path, pet('zipped'))));
    const response = await send(path, body, { 'content-encoding': coding });
    expect(response.status).toBe(415);
    expect(messageOf(response)).toBe(
      `Content-Encoding "${coding}" is not supported: send the body without a content coding`,
    );
  });

  it('refuses a plain JSON body labelled gzip, rather than reading it as plain', async () => {
    const response = await send(path, Buffer.from(framed(path, pet('plain'))), {
      'content-encoding': 'gzip',
    });
    expect(response.status).toBe(415);
  });

  it('takes Content-Encoding: identity, which is no coding at all', async () => {
    const response = await send(path, Buffer.from(framed(path, pet('identity'))), {
      'content-encoding': 'identity',
    });
    expect(response.status).toBe(path.startsWith('/v1') ? 201 : 200);
  });
});

describe('query parameters on /trpc', () => {
  const list = (query: string) =>
    fetch(`${server.origin}/trpc/pets.list?${query}`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });

  it.each([
    ['an unknown parameter', 'limit=5', 'Unknown query parameter "limit"'],
    [
      'an unknown parameter beside input',
      `input=${encodeURIComponent('{}')}&x=1`,
      'Unknown query parameter "x"',
    ],
    [
      'a repeated input',
      `input=${encodeURIComponent('{"limit":1}')}&input=${encodeURIComponent('{"limit":100}')}`,
      'Query parameter "input" is repeated',
    ],
    [
      'a repeated batch',
      `batch=1&batch=0&input=${encodeURIComponent('{"0":{}}')}`,
      'Query parameter "batch" is repeated',
    ],
    ['a parameter named __proto__', '__proto__=1', 'Unknown query parameter "__proto__"'],
  ])('refuses %s with 400 naming it, as REST does', async (_, query, message) => {
    const response = await list(query);
    const body = (await response.json()) as { error: { message: string; data: { code: string } } };
    expect(response.status).toBe(400);
    expect(body.error.message).toBe(message);
    expect(body.error.data.code).toBe('BAD_REQUEST');
  });

  it('answers an unknown parameter without a key with 401: authentication comes first', async () => {
    expect((await fetch(`${server.origin}/trpc/pets.list?x=1`)).status).toBe(401);
  });

  it('takes what tRPC clients send: input, and batch=1 with input', async () => {
    expect((await list(`input=${encodeURIComponent('{"limit":1}')}`)).status).toBe(200);
    expect((await list(`batch=1&input=${encodeURIComponent('{"0":{"limit":1}}')}`)).status).toBe(
      200,
    );
  });
});

describe('a body cut short by a client that leaves', () => {
  it('is logged once as aborted, never as a server error', async () => {
    const socket = connect(Number(new URL(server.origin).port), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\n` +
        'X-Request-Id: cut-body-1\r\nContent-Type: application/json\r\n' +
        'Content-Length: 1000\r\n\r\n{"name":"Cut',
    );
    // Whether the service is reading the body or not there yet, the outcome is the same.
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    const lines = () => server.logs.filter((line) => line.reqId === 'cut-body-1');
    await expect.poll(lines).toEqual([expect.objectContaining({ aborted: true })]);
    // The request's line comes as the connection closes; an error line would come after it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines()).toHaveLength(1);
  });

  it('is CLIENT_CLOSED_REQUEST when the client left before the reading began', async () => {
    const req = new IncomingMessage(new Socket());
    req.headers = { 'content-type': 'application/json', 'content-length': '10' };
    req.destroy();
    // Its close has passed: no event the reading could wait for is still to come.
    await new Promise((resolve) => req.once('close', resolve));
    const error = await readJsonBody(req).catch((cause: unknown) => cause);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe('CLIENT_CLOSED_REQUEST');
  });
});
