/** Response headers shared by several operations, kept once under components.headers. */
const header = (description: string, example?: string, required = true) => ({
  description,
  required,
  schema: { type: 'string' as const, ...(example ? { examples: [example] } : {}) },
});

export const SHARED_HEADERS = {
  RequestId: header(
    "Identifies this request in the service logs: the caller's own `X-Request-Id` when it sent a sane one (up to 128 of `A-Z a-z 0-9 . _ : @ / + = -`), otherwise generated.",
  ),
  WwwAuthenticate: header(
    'RFC 6750 challenge; carries `error="invalid_token"` when a key was sent but is not valid.',
    'Bearer realm="petstore", error="invalid_token"',
  ),
  Deprecation: header('RFC 9745: when this operation was deprecated.', '@1795219200'),
  Sunset: header('RFC 8594: when this operation will be removed.', 'Thu, 05 Dec 2030 00:00:00 GMT'),
  RetryAfter: header('Seconds until the rate-limit window resets (RFC 9110).', '42'),
  // draft-ietf-httpapi-ratelimit-headers: sent on every authenticated answer while limits are on.
  RateLimitPolicy: header(
    'The per-key quota: `q` requests per window of `w` seconds.',
    '"default";q=600;w=60',
    false,
  ),
  RateLimit: header(
    'What is left of the quota: `r` requests remaining, `t` seconds until the window resets.',
    '"default";r=599;t=42',
    false,
  ),
  Position: header(
    'With read replicas configured (docs/replicas.md): the position this answer was served at, or after a write the position of its commit. Send the highest seen as `Petstore-Position` and later reads see at least this far.',
    '00000000016b3748',
    false,
  ),
  DeprecationLink: header(
    'Points at the documentation that names the replacement.',
    '<https://api.petstore.example/docs>; rel="deprecation"',
  ),
};

const ref = (name: keyof typeof SHARED_HEADERS) => ({ $ref: `#/components/headers/${name}` });

export const REQUEST_ID = { 'X-Request-Id': ref('RequestId') };
export const RATE_LIMIT = {
  'RateLimit-Policy': ref('RateLimitPolicy'),
  RateLimit: ref('RateLimit'),
};
/** Headers particular to one error status. */
export const ERROR_HEADERS: Partial<Record<string, Record<string, { $ref: string }>>> = {
  '401': { 'WWW-Authenticate': ref('WwwAuthenticate') },
  '429': { 'Retry-After': ref('RetryAfter') },
};
export const DEPRECATION = {
  Deprecation: ref('Deprecation'),
  Sunset: ref('Sunset'),
  Link: ref('DeprecationLink'),
};
export const POSITION = { 'Petstore-Position': ref('Position') };

/** The request header of the reads a replica may serve. */
export const POSITION_PARAMETER = {
  in: 'header',
  name: 'Petstore-Position',
  required: false,
  description:
    'A `Petstore-Position` this service answered with: the answer reflects every change up to it, from a replica that has replayed that far or from the primary. Anything else is 400 (`INVALID_POSITION`).',
  schema: { type: 'string', pattern: '^[0-9a-f]{16}$', examples: ['00000000016b3748'] },
};
