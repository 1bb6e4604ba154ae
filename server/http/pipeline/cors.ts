import type { IncomingMessage } from 'node:http';

/** What a browser script may read from our responses beyond the CORS-safelisted headers. */
const EXPOSED_HEADERS = [
  'Location',
  'ETag',
  'Link',
  'X-Request-Id',
  'RateLimit',
  'RateLimit-Policy',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'Deprecation',
  'Sunset',
  'Idempotent-Replayed',
  'WWW-Authenticate',
].join(', ');
const ALLOWED_HEADERS =
  'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Request-Id, traceparent';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * CORS for the configured origins only. Adds its headers to `headers` (those every answer to
 * the request carries) and returns true for a preflight, which the caller answers with an empty
 * 204: browsers send preflights without credentials, so they must not meet authentication.
 * Other origins get no CORS headers, and the browser keeps our answers from their scripts.
 */
export function createCors(origins: readonly string[], routeMethods: readonly string[]) {
  const allowed = new Set(origins);
  // tRPC takes GET and POST; HEAD goes with GET, OPTIONS is the preflight itself.
  const allowedMethods = [...new Set([...routeMethods, 'GET', 'HEAD', 'POST', 'OPTIONS'])].join(
    ', ',
  );
  return (req: IncomingMessage, headers: Record<string, string>): boolean => {
    if (allowed.size === 0) return false;
    // Answers differ by Origin, so shared caches must keep them apart.
    headers.vary = 'Origin';
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return false;
    headers['access-control-allow-origin'] = origin;
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'];
    if (!preflight) {
      headers['access-control-expose-headers'] = EXPOSED_HEADERS;
      return false;
    }
    headers['access-control-allow-methods'] = allowedMethods;
    headers['access-control-allow-headers'] = ALLOWED_HEADERS;
    headers['access-control-max-age'] = PREFLIGHT_MAX_AGE_SECONDS;
    return true;
  };
}
