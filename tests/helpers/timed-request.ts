import type { Conformance } from './conformance.js';
import { rawRequest, type RawResponse } from './http.js';

export interface TimedRequestOptions {
  method?: string;
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Given up once the server sends nothing for this long, as a real client would: status 0. */
  timeoutMs?: number;
  /** Checks every answer against the served document, as a TestServer's own clients do. */
  conformance?: Conformance;
}

export interface TimedAnswer extends RawResponse {
  /** From sending the request to the last byte of its answer. */
  ms: number;
}

/** A cut-off or non-JSON answer goes to the document check as text, which then names it. */
function parsedOrText(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

function checkedResponse(answer: RawResponse) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const each of [value ?? []].flat()) headers.append(name, each);
  }
  const body = answer.body === '' ? undefined : parsedOrText(answer.body);
  return { status: answer.status, headers, body };
}

/**
 * One request of a fault test, timed and with a deadline, on a connection of its own so that
 * a cluster's workers take turns answering. A fault test counts the answers that never came
 * rather than stopping at the first: a request refused, cut off or not answered in time is
 * status 0, with the error as its body.
 */
export async function timedRequest(
  origin: string,
  path: string,
  options: TimedRequestOptions = {},
): Promise<TimedAnswer> {
  const method = options.method ?? 'GET';
  const headers = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const started = performance.now();
  const answer = await rawRequest(origin, path, {
    method,
    headers,
    body,
    timeoutMs: options.timeoutMs,
  }).catch((error: unknown): RawResponse => ({ status: 0, headers: {}, body: String(error) }));
  const ms = performance.now() - started;
  if (options.conformance && answer.status !== 0) {
    options.conformance.checkTarget(method, path, checkedResponse(answer));
  }
  return { ...answer, ms };
}
