import type { ErrorBody } from '../../domain/schemas/error.js';

/**
 * One example body per error status, with that status's own code, so that each response in
 * the reference shows what it answers (the Error schema's own example is a 400). The messages
 * are the service's, with sample values.
 */
const EXAMPLES: Record<number, Omit<ErrorBody, 'status'>> = {
  400: {
    code: 'BAD_REQUEST',
    message: 'Invalid input: categoryId: expected number, received string',
    issues: [{ path: 'categoryId', message: 'Invalid input: expected number, received string' }],
  },
  401: { code: 'UNAUTHORIZED', message: 'Missing or invalid API key' },
  403: { code: 'FORBIDDEN', message: 'This API key is read-only' },
  404: { code: 'NOT_FOUND', message: 'No pet with id 42' },
  408: {
    code: 'REQUEST_TIMEOUT',
    message: 'The request was not received in time: send its headers and body without pausing',
  },
  409: { code: 'CONFLICT', message: 'Pet 42 cannot go from sold to available; sold is final' },
  410: {
    code: 'GONE',
    message:
      'Events after 1200 are no longer kept (up to 1500 were deleted by retention); start a new stream without a last event id and read the current state again',
  },
  412: {
    code: 'PRECONDITION_FAILED',
    message: 'If-Match does not name the current version ("42.4"); read the resource again',
  },
  413: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body exceeds 65536 bytes' },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Request body must be application/json' },
  422: { code: 'UNPROCESSABLE_CONTENT', message: 'No pet with id 42' },
  429: {
    code: 'TOO_MANY_REQUESTS',
    message: 'Rate limit of 600 requests per 60 s exceeded for API key N7wCOTQd; retry after 12 s',
  },
  500: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' },
  503: {
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service is temporarily unavailable; retry shortly',
  },
};

/** The name of a status's example under `components.examples`: its code. */
function nameOf(status: number): string {
  const example = EXAMPLES[status];
  if (!example) throw new Error(`No error example for status ${status}`);
  return example.code;
}

/** A documented error status's example, by reference: each is written once in the document. */
export function errorExampleRef(status: number) {
  const name = nameOf(status);
  return { [name]: { $ref: `#/components/examples/${name}` } };
}

/** `components.examples`: one example Error body per status. */
export function errorExamples() {
  return Object.fromEntries(
    Object.entries(EXAMPLES).map(([status, example]) => [
      example.code,
      { summary: `${status} ${example.code}`, value: { ...example, status: Number(status) } },
    ]),
  );
}
