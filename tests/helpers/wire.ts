import { connect } from 'node:net';
import type { Conformance } from './conformance.js';
import type { ApiResponse } from './http.js';

export interface WireRequest {
  method?: string;
  /** The request target exactly as it goes on the wire. */
  target: string;
  /** Header lines in order, repeats included; Host is added unless one is given. */
  headers?: [string, string][];
  body?: string;
}

/** Reads a whole HTTP/1.1 answer from a connection the server closes after it. */
function parseWireResponse(raw: Buffer): { status: number; headers: Headers; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let body = raw.subarray(split + 4);
  if (headers.get('transfer-encoding') === 'chunked') {
    const chunks: Buffer[] = [];
    for (let at = 0; ;) {
      const end = body.indexOf('\r\n', at);
      const size = parseInt(body.subarray(at, end).toString('latin1'), 16);
      if (!size) break;
      chunks.push(body.subarray(end + 2, end + 2 + size));
      at = end + 2 + size + 2;
    }
    body = Buffer.concat(chunks);
  }
  return { status: Number(statusLine.split(' ')[1]), headers, text: body.toString('utf8') };
}

/**
 * A request written byte for byte on a connection of its own, for what fetch and node's
 * client will not send: a target that a URL would normalise (`/trpc/../v1/pets`), an
 * absolute-form target, or a header sent twice. The answer is checked like any other.
 */
export function sendOnWire(
  origin: string,
  conformance: Conformance,
  request: WireRequest,
): Promise<ApiResponse> {
  const { hostname, port, host } = new URL(origin);
  const method = request.method ?? 'GET';
  const headers = request.headers ?? [];
  const lines = [`${method} ${request.target} HTTP/1.1`];
  if (!headers.some(([name]) => name.toLowerCase() === 'host')) lines.push(`Host: ${host}`);
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  if (request.body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(request.body)}`);
  lines.push('Connection: close', '', request.body ?? '');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(lines.join('\r\n')));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in time')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('close', () => {
      const { status, headers: answered, text } = parseWireResponse(Buffer.concat(chunks));
      const result = {
        status,
        headers: answered,
        body: text === '' ? undefined : (JSON.parse(text) as unknown),
      };
      try {
        conformance.checkTarget(method, request.target, result);
        resolve(result);
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the assertion's own error, passed on
        reject(error);
      }
    });
  });
}
