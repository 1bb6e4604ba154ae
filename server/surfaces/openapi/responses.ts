import type { RestBinding } from '../../operations/define.js';
import { errorExampleRef } from './error-examples.js';
import { DEPRECATION, ERROR_HEADERS, POSITION, RATE_LIMIT, REQUEST_ID } from './headers.js';

type Json = Record<string, unknown>;

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** What every authenticated operation can answer, whatever it does. */
const COMMON_ERRORS: Record<number, string> = {
  401: 'Missing or invalid API key.',
  408: 'The request did not arrive whole in time (headers within 10 s, all of it within 30 s); the connection is closed.',
  429: "The API key has spent its window's request quota, or the client address has failed authentication too often; retry after `Retry-After` seconds.",
  500: 'Unexpected server error.',
  503: 'The database is unavailable; retry shortly.',
};

/**
 * Every request of these methods may carry a body, read and checked before the operation runs,
 * or refused by one that takes none (docs/openapi.md).
 */
const BODY_METHODS = new Set(['POST', 'PATCH', 'DELETE']);
const BODY_ERRORS: Record<number, string> = {
  413: 'The body is larger than 64 KiB.',
  415: 'The body is not JSON of an accepted media type, or has a content coding.',
};

export const STABILITY: Record<RestBinding['stability'], string> = {
  stable: 'Stability: stable. Changes to it keep to the compatibility policy of version 1.',
  beta: 'Stability: beta. It may still change before it is declared stable.',
  experimental: 'Stability: experimental. It may change or go away in any release.',
};

function successOf(binding: RestBinding, generated: Json | undefined, positioned: boolean): Json {
  // An answer without a body documents none, whatever the output schema renders to.
  const success =
    binding.successStatus !== 204 ? (generated ?? {}) : { description: binding.successDescription };
  if (positioned) success.headers = { ...(success.headers as Json | undefined), ...POSITION };
  return success;
}

/** `positioned`: a success answers with `Petstore-Position` (a write, a read a replica may serve). */
export function responsesOf(
  binding: RestBinding,
  generated: Record<string, Json>,
  positioned: boolean,
): Record<string, Json> {
  const success = successOf(binding, generated['200'], positioned);
  const responses: Record<string, Json> = { [binding.successStatus]: success };
  if (binding.conditionalRead) {
    responses['304'] = {
      description: '`If-None-Match` names the current version: no body.',
      headers: { ...(success.headers as Json | undefined) },
    };
  }
  // An operation may say more than the common description (the event stream's own 429).
  const errors = {
    ...COMMON_ERRORS,
    ...(BODY_METHODS.has(binding.method) ? BODY_ERRORS : {}),
    ...binding.errorResponses,
  };
  for (const [status, description] of Object.entries(errors).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    responses[status] = {
      description,
      headers: { ...ERROR_HEADERS[status] },
      content: {
        'application/json': { schema: ERROR_REF, examples: errorExampleRef(Number(status)) },
      },
    };
  }
  for (const [status, response] of Object.entries(responses).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    response.headers = {
      ...(response.headers as Json | undefined),
      // An unauthenticated caller has no bucket, so a 401 has no quota to report.
      ...(status === '401' ? {} : RATE_LIMIT),
      ...(binding.deprecation ? DEPRECATION : {}),
      ...REQUEST_ID,
    };
  }
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}
