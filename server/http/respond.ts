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
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(payload));
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
