import type { IncomingMessage } from 'node:http';
import { TRPCError } from '@trpc/server';
import { readBearer, type Authenticator, type Principal } from '../../auth/authenticator.js';
import type { RequestState } from './request-state.js';
import { repeatedMessage } from './singleton-headers.js';

const REALM = 'Bearer realm="petstore"';

/**
 * The caller behind the request's bearer key, once per request, or 401 with the RFC 6750
 * challenge. A key lookup in the database draws on the request's database budget.
 * `repeated`: the request carries two Authorization fields, and so no one credential.
 */
export async function authenticate(
  authenticator: Authenticator,
  req: IncomingMessage,
  state: RequestState,
  repeated: boolean,
): Promise<Principal> {
  if (repeated) {
    // RFC 6750 §3.1 names this invalid_request; 401 (not its suggested 400) because the caller
    // is not authenticated, and every 401 carries the challenge (RFC 9110 §11.6.1).
    state.headers['www-authenticate'] = `${REALM}, error="invalid_request"`;
    throw new TRPCError({ code: 'UNAUTHORIZED', message: repeatedMessage('Authorization') });
  }
  const credentials = readBearer(req.headers.authorization);
  const principal =
    credentials.kind === 'token'
      ? await authenticator.authenticate(credentials.token, state.budget)
      : null;
  if (principal) {
    state.keyId = principal.keyId;
    return principal;
  }
  const missing = credentials.kind === 'missing';
  state.headers['www-authenticate'] = missing ? REALM : `${REALM}, error="invalid_token"`;
  throw new TRPCError({
    code: 'UNAUTHORIZED',
    message: missing ? 'Missing API key: send Authorization: Bearer <key>' : 'Invalid API key',
  });
}
