import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Conformance } from './conformance.js';

/**
 * Every way the tests talk HTTP: REST and tRPC calls through fetch, a fetch for real clients
 * (openapi-fetch, @trpc/client), and raw node requests for what fetch cannot send. Every
 * response that reaches a test through fetch is checked against the served OpenAPI document.
 */

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  /** A value to send as JSON, or a string sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The API key to send; `null` sends no Authorization header. */
  key?: string | null;
}

export type ApiClient = <T = unknown>(
  method: string,
  path: string,
  options?: RequestOptions,
) => Promise<ApiResponse<T>>;

export type TrpcClient = <T = unknown>(
  procedure: string,
  input: unknown,
  kind: 'query' | 'mutation',
  options?: Omit<RequestOptions, 'body'>,
) => Promise<ApiResponse<T>>;

async function parsedBody(response: Response): Promise<unknown> {
  const text = await response.text();
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

function check(conformance: Conformance, method: string, url: string, result: ApiResponse): void {
  if (new URL(url).pathname.startsWith('/trpc/')) conformance.checkTrpc(url, result);
  else conformance.check(method, url, result);
}

/** REST and raw tRPC calls with a default API key; every answer is checked. */
export function createHttpClients(origin: string, conformance: Conformance, defaultKey: string) {
  const send = async (method: string, url: string, options: RequestOptions) => {
    const key = options.key === undefined ? defaultKey : options.key;
    const headers: Partial<Record<string, string>> = { ...options.headers };
    if (key !== null) headers.authorization ??= `Bearer ${key}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url, { method, headers: headers as Record<string, string>, body });
    const result: ApiResponse = {
      status: response.status,
      headers: response.headers,
      body: await parsedBody(response),
    };
    check(conformance, method, url, result);
    return result;
  };
  const api = ((method, path, options = {}) =>
    send(method, `${origin}${path}`, options)) as ApiClient;
  const trpc = ((procedure, input, kind, options = {}) => {
    const url = new URL(`/trpc/${procedure}`, origin);
    if (kind === 'mutation') return send('POST', url.toString(), { ...options, body: input });
    if (input !== undefined) url.searchParams.set('input', JSON.stringify(input));
    return send('GET', url.toString(), options);
  }) as TrpcClient;
  return { api, trpc };
}

/** A fetch for real clients: every answer they receive is checked against the document. */
export function checkedFetch(conformance: Conformance) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const response = await fetch(request.clone());
    check(conformance, request.method, request.url, {
      status: response.status,
      headers: response.headers,
      body: await parsedBody(response.clone()),
    });
    return response;
  };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RawRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}

/** One request on a connection of its own, so each one is a new connection to the server. */
export function rawRequest(
  origin: string,
  path: string,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, {
      method: options.method ?? 'GET',
      headers: options.headers,
      agent: false,
    });
    // A connection handed to a worker that is then killed is never answered: give up, as a
    // real client would.
    req.setTimeout(options.timeoutMs ?? 10_000, () => {
      req.destroy(new Error('no response in time'));
    });
    req.once('error', reject);
    req.once('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.once('error', reject);
      res.once('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.end(options.body);
  });
}

export interface HeldRequest {
  /** Resolves when the server has read the request's headers and asked for its body. */
  accepted: Promise<void>;
  /** Sends the rest of the body. */
  release(): void;
  response: Promise<RawResponse>;
}

/**
 * A POST held in flight for real: with `Expect: 100-continue` the server answers 100 once it
 * is handling the request, and then waits for a body that we send only half of until release.
 * The connection is keep-alive, as a browser's or a load balancer's would be.
 */
export function heldPost(
  origin: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): HeldRequest {
  const payload = Buffer.from(body);
  const half = Math.floor(payload.length / 2);
  const req = httpRequest(`${origin}${path}`, {
    method: 'POST',
    agent: new Agent({ keepAlive: true }),
    headers: {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(payload.length),
      expect: '100-continue',
    },
  });
  const accepted = new Promise<void>((resolve, reject) => {
    req.once('error', reject);
    req.once('continue', () => {
      req.write(payload.subarray(0, half), () => {
        resolve();
      });
    });
  });
  const response = new Promise<RawResponse>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
      });
    });
  });
  req.flushHeaders();
  return {
    accepted,
    release: () => req.end(payload.subarray(half)),
    response,
  };
}
