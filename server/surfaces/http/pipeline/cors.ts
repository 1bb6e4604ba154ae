import type { IncomingMessage } from 'node:http';
import { appendVary } from './request-state.js';

/** The header names CORS lets through, from what the service reads and documents. */
export interface CorsHeaders {
  /** Request headers a page may send (Access-Control-Allow-Headers). */
  allowed: readonly string[];
  /** Response headers a page may read (Access-Control-Expose-Headers). */
  exposed: readonly string[];
}

const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * CORS for the configured origins only. Adds its headers to `headers` (those every answer to
 * the request carries) and returns true for a preflight, which the caller answers with an empty
 * 204: browsers send preflights without credentials, so they must not meet authentication.
 * Other origins get no CORS headers, their preflights included (204 rather than 403: the
 * missing Access-Control-Allow-Origin is the refusal, and no Error body is needed), and the
 * browser keeps our answers from their scripts.
 * Not the cors package: it sets its headers on the response one by one, outside the object
 * every answer is sent with, answers any OPTIONS as a preflight, and costs 2 µs more a request
 * (docs/performance.md, "Hand-written HTTP pieces").
 */
export function createCors(
  origins: readonly string[],
  routeMethods: readonly string[],
  names: CorsHeaders,
) {
  const allowed = new Set(origins);
  const allowedHeaders = names.allowed.join(', ');
  const exposedHeaders = names.exposed.join(', ');
  // tRPC takes GET and POST; HEAD goes with GET, OPTIONS is the preflight itself.
  const allowedMethods = [...new Set([...routeMethods, 'GET', 'HEAD', 'POST', 'OPTIONS'])].join(
    ', ',
  );
  return (req: IncomingMessage, headers: Record<string, string>): boolean => {
    const origin = req.headers.origin;
    const preflight =
      req.method === 'OPTIONS' &&
      origin !== undefined &&
      req.headers['access-control-request-method'] !== undefined;
    // Answers differ by Origin, so shared caches must keep them apart.
    if (allowed.size > 0) appendVary(headers, 'Origin');
    // A preflight from another origin, or with CORS off, is still answered here (204, no CORS
    // headers, which the browser reads as a refusal) rather than by authentication's 401.
    if (origin === undefined || !allowed.has(origin)) return preflight;
    headers['access-control-allow-origin'] = origin;
    if (!preflight) {
      headers['access-control-expose-headers'] = exposedHeaders;
      return false;
    }
    headers['access-control-allow-methods'] = allowedMethods;
    headers['access-control-allow-headers'] = allowedHeaders;
    headers['access-control-max-age'] = PREFLIGHT_MAX_AGE_SECONDS;
    return true;
  };
}
