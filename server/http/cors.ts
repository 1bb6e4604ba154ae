import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a browser script may read from our responses beyond the CORS-safelisted headers. */
const EXPOSED_HEADERS = [
  'Location',
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
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
const ALLOWED_METHODS = 'GET, HEAD, POST, OPTIONS';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * CORS for the configured origins only. Returns true when it answered the request itself: a
 * preflight, which browsers send without credentials, so it must not meet authentication.
 * Other origins get no CORS headers, and the browser keeps our answers from their scripts.
 */
export function createCors(origins: readonly string[]) {
  const allowed = new Set(origins);
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (allowed.size === 0) return false;
    // Answers differ by Origin, so shared caches must keep them apart.
    res.setHeader('vary', 'Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return false;
    res.setHeader('access-control-allow-origin', origin);
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'];
    if (!preflight) {
      res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
      return false;
    }
    res.setHeader('access-control-allow-methods', ALLOWED_METHODS);
    res.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
    res.setHeader('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
    res.statusCode = 204;
    res.end();
    return true;
  };
}
