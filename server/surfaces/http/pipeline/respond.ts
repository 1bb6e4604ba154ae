import type { ServerResponse } from 'node:http';
import type { TRPCError } from '@trpc/server';
import { errorBody, trpcErrorShape } from '../../trpc/errors.js';

const NO_HEADERS: Readonly<Record<string, string>> = {};

/**
 * For answers written by code that sets headers one by one (the docs assets, tRPC's adapter):
 * the request's own headers go on `res` first, and that code may still replace them.
 */
export function setHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

/** Sends `body` as JSON with `headers`. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = NO_HEADERS,
): void {
  const payload = JSON.stringify(body);
  // One writeHead call: with no header set on `res` before, node sends this object as it is,
  // without the per-response header map each setHeader call fills and writeHead walks again.
  // Headers set earlier (shutdown's `connection: close`) are kept unless named here again.
  // The literal's own keys come first: V8 copies a spread and then adds new keys slowly.
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

/** An answer without a body (204, 304), with `headers`. */
export function sendEmpty(
  res: ServerResponse,
  status: 204 | 304,
  headers: Readonly<Record<string, string>>,
): void {
  res.writeHead(status, headers);
  res.end();
}

/** Sends the contract's Error body; `status` in the body is always the HTTP status. */
export function sendError(
  res: ServerResponse,
  error: TRPCError,
  headers: Readonly<Record<string, string>> = NO_HEADERS,
): void {
  const body = errorBody(error);
  sendJson(res, body.status, body, headers);
}

/** An error in tRPC's envelope, for a request to `/trpc` that failed before tRPC's runner. */
export function sendTrpcError(
  res: ServerResponse,
  error: TRPCError,
  path: string | undefined,
  headers: Readonly<Record<string, string>> = NO_HEADERS,
): void {
  const shape = trpcErrorShape(error, path);
  sendJson(res, shape.data.httpStatus, { error: shape }, headers);
}
