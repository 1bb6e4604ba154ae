import type { IncomingMessage } from 'node:http';
import { DatabaseBudget, type WorkTracker } from '../../../../db/deadline.js';
import { requestIdFrom } from './request-id.js';
import { TRACE_CONTEXT_HEADER, traceContextFrom, type TraceContext } from './trace-context.js';

/** Read on every request, whatever its operation, so no operation of the document lists it. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Which kind of answer the request gets when it fails: the contract's Error body or tRPC's envelope. */
export type Surface = 'rest' | 'trpc';

/** What the layers of one request share: its id, where it came in, and headers for any answer. */
export interface RequestState {
  requestId: string;
  /** The W3C trace the request belongs to, in its log lines. */
  trace: TraceContext;
  method: string;
  /**
   * The path exactly as sent, never normalised: `/trpc/../v1/pets` or `//x/healthz` name no
   * route, so a proxy that allows only some paths cannot be walked around.
   */
  path: string;
  /** The query string as sent, without the `?`. */
  query: string;
  /** `scheme://host[:port]` the caller used; links in responses are built on it. */
  origin: string;
  surface: Surface;
  /** Route name for logs, once known. */
  route: string | undefined;
  /** The operation's name for metrics, once known: a bounded set, never the raw path. */
  operation: string | undefined;
  keyId: string | undefined;
  /**
   * Headers every answer to this request carries, error or not, the operation's own
   * (Location, Link) included: the one place an answer's headers are collected.
   */
  headers: Record<string, string>;
  /** The request's time on the database, shared by the key lookup and the operation. */
  budget: DatabaseBudget;
  startedAt: number;
}

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const PROTO = /^https?$/;
/** RFC 9112 §3.2.2: a request to a proxy names the whole URL (absolute-form). */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)/i;

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(',')[0]?.trim();
}

interface Target {
  path: string;
  query: string;
  /** The authority of an absolute-form target. */
  authority?: string;
}

/**
 * Forwarded headers are believed only behind a trusted proxy; an absolute-form target's
 * authority replaces Host (RFC 9112 §3.2.2); a bad host falls back.
 */
function originOf(
  req: IncomingMessage,
  target: Target,
  options: { trustProxy: boolean; fallbackOrigin: string },
): string {
  const forwardedHost = options.trustProxy
    ? firstValue(req.headers['x-forwarded-host'])
    : undefined;
  const forwardedProto = options.trustProxy
    ? firstValue(req.headers['x-forwarded-proto'])
    : undefined;
  const host = forwardedHost ?? target.authority ?? req.headers.host;
  if (!host || !HOST.test(host)) return options.fallbackOrigin;
  const proto = forwardedProto && PROTO.test(forwardedProto) ? forwardedProto : 'http';
  return `${proto}://${host}`;
}

/** The path and query of the request target as sent; a fragment is not part of a request. */
function splitTarget(url: string): Target {
  const absolute = url.startsWith('/') ? null : ABSOLUTE_FORM.exec(url);
  const rest = absolute ? url.slice(absolute[0].length) : url;
  const mark = rest.indexOf('?');
  const target: Target =
    mark === -1
      ? { path: rest, query: '' }
      : { path: rest.slice(0, mark), query: rest.slice(mark + 1) };
  if (absolute) target.authority = absolute[1];
  return target;
}

export function createRequestState(
  req: IncomingMessage,
  options: { trustProxy: boolean; fallbackOrigin: string; databaseWork?: WorkTracker },
): RequestState {
  const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER.toLowerCase()]);
  const target = splitTarget(req.url ?? '/');
  const { path, query } = target;
  return {
    requestId,
    trace: traceContextFrom(req.headers[TRACE_CONTEXT_HEADER]),
    method: req.method ?? 'GET',
    path,
    query,
    origin: originOf(req, target, options),
    surface: path.startsWith('/trpc/') ? 'trpc' : 'rest',
    route: undefined,
    operation: undefined,
    keyId: undefined,
    headers: { 'x-request-id': requestId, 'x-content-type-options': 'nosniff' },
    budget: new DatabaseBudget(undefined, options.databaseWork),
    startedAt: performance.now(),
  };
}

/** Adds to the `Vary` answer header, keeping what is there. */
export function appendVary(headers: Record<string, string>, value: string): void {
  headers.vary = headers.vary ? `${headers.vary}, ${value}` : value;
}
