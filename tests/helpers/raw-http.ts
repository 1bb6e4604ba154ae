import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

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
