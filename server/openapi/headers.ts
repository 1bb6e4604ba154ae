import { DEPRECATED_AT_UNIX, SUNSET_HTTP_DATE } from '../http/deprecation.js';

/** Response headers shared by several operations, kept once under components.headers. */
const header = (description: string, example?: string) => ({
  description,
  required: true,
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
  Deprecation: header('RFC 9745: when this operation was deprecated.', `@${DEPRECATED_AT_UNIX}`),
  Sunset: header('RFC 8594: when this operation will be removed.', SUNSET_HTTP_DATE),
  DeprecationLink: header(
    'Points at the documentation that names the replacement.',
    '<https://api.petstore.example/docs>; rel="deprecation"',
  ),
};

const ref = (name: keyof typeof SHARED_HEADERS) => ({ $ref: `#/components/headers/${name}` });

export const REQUEST_ID = { 'X-Request-Id': ref('RequestId') };
export const WWW_AUTHENTICATE = { 'WWW-Authenticate': ref('WwwAuthenticate') };
export const DEPRECATION = {
  Deprecation: ref('Deprecation'),
  Sunset: ref('Sunset'),
  Link: ref('DeprecationLink'),
};
