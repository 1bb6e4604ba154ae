import type { IncomingMessage } from 'node:http';
import { TRPCError } from '@trpc/server';
import { requestIdFrom } from './request-id.js';

/** What the layers of one request share: its id, where it came in, and headers for any answer. */
export interface RequestState {
  requestId: string;
  url: URL;
  /** `scheme://host[:port]` the caller used; links in responses are built on it. */
  origin: string;
  /** Route template for logs, once known. */
  route: string | undefined;
  keyId: string | undefined;
  /**
   * Headers every answer to this request carries, error or not. JSON answers send them with the
   * status in one writeHead call; the docs assets and tRPC's adapter, which set headers one by
   * one anyway, copy them onto the response first (both in server/http/respond.ts).
   */
  headers: Record<string, string>;
  startedAt: number;
}

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const PROTO = /^https?$/;

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(',')[0]?.trim();
}

/** Forwarded headers are believed only behind a trusted proxy; a bad Host falls back. */
function originOf(req: IncomingMessage, trustProxy: boolean, fallbackOrigin: string): string {
  const forwardedHost = trustProxy ? firstValue(req.headers['x-forwarded-host']) : undefined;
  const forwardedProto = trustProxy ? firstValue(req.headers['x-forwarded-proto']) : undefined;
  const host = forwardedHost ?? req.headers.host;
  if (!host || !HOST.test(host)) return fallbackOrigin;
  const proto = forwardedProto && PROTO.test(forwardedProto) ? forwardedProto : 'http';
  return `${proto}://${host}`;
}

export function createRequestState(
  req: IncomingMessage,
  options: { trustProxy: boolean; fallbackOrigin: string },
): RequestState {
  const requestId = requestIdFrom(req.headers['x-request-id']);
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://request.invalid');
  } catch {
    url = new URL('http://request.invalid/');
  }
  return {
    requestId,
    url,
    origin: originOf(req, options.trustProxy, options.fallbackOrigin),
    route: undefined,
    keyId: undefined,
    headers: { 'x-request-id': requestId, 'x-content-type-options': 'nosniff' },
    startedAt: performance.now(),
  };
}

export function notFound(state: RequestState, method: string | undefined): TRPCError {
  return new TRPCError({
    code: 'NOT_FOUND',
    message: `No route for ${method ?? ''} ${state.url.pathname}`,
  });
}
