import type { ServerResponse } from 'node:http';
import type { TRPCError } from '@trpc/server';
import { errorBody } from '../errors.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  // One writeHead call: with no header set on `res` before, node sends this object as it is,
  // without the per-response header map each setHeader call fills and writeHead walks again.
  // Headers set earlier (shutdown's `connection: close`) are kept unless named here again.
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/** Sends the contract's Error body; `status` in the body is always the HTTP status. */
export function sendError(
  res: ServerResponse,
  error: TRPCError,
  headers: Record<string, string> = {},
): void {
  const body = errorBody(error);
  sendJson(res, body.status, body, headers);
}
