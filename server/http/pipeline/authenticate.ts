import type { IncomingMessage } from 'node:http';
import { TRPCError } from '@trpc/server';
import { readBearer, type Authenticator, type Principal } from '../../auth/authenticator.js';
import type { FailureBudget } from '../../auth/failure-budget.js';
import type { ServiceMetrics } from '../../metrics/service-metrics.js';
import { clientAddress } from './client-address.js';
import type { RequestState } from './request-state.js';
import { repeatedMessage } from './singleton-headers.js';

const REALM = 'Bearer realm="petstore"';

/**
 * The caller behind the request's bearer key, once per request, or 401 with the RFC 6750
 * challenge. A key lookup in the database draws on the request's database budget.
 * `repeated`: the request carries two Authorization fields, and so no one credential.
 */
export async function authenticate(
  deps: {
    authenticator: Authenticator;
    authFailures?: FailureBudget | undefined;
    trustProxy: boolean;
    metrics: Pick<ServiceMetrics, 'authRefusals'>;
  },
  req: IncomingMessage,
  state: RequestState,
  repeated: boolean,
): Promise<Principal> {
  if (repeated) {
    // RFC 6750 §3.1 names this invalid_request; 401 (not its suggested 400) because the caller
    // is not authenticated, and every 401 carries the challenge (RFC 9110 §11.6.1).
    state.headers['www-authenticate'] = `${REALM}, error="invalid_request"`;
    deps.metrics.authRefusals.inc({ reason: 'repeated' });
    throw new TRPCError({ code: 'UNAUTHORIZED', message: repeatedMessage('Authorization') });
  }
  const { authenticator, authFailures } = deps;
  const credentials = readBearer(req.headers.authorization);
  // The client's address is worked out only for the few requests that need it.
  const gate =
    authFailures &&
    (() => refuseSpentAddress(authFailures, clientAddress(req, deps.trustProxy), state, deps));
  const principal =
    credentials.kind === 'token'
      ? await authenticator.authenticate(credentials.token, state.budget, gate)
      : null;
  if (principal) {
    state.keyId = principal.keyId;
    return principal;
  }
  const missing = credentials.kind === 'missing';
  if (authFailures && !missing) await authFailures.record(clientAddress(req, deps.trustProxy));
  state.headers['www-authenticate'] = missing ? REALM : `${REALM}, error="invalid_token"`;
  deps.metrics.authRefusals.inc({ reason: missing ? 'missing' : 'invalid' });
  throw new TRPCError({
    code: 'UNAUTHORIZED',
    message: missing ? 'Missing API key: send Authorization: Bearer <key>' : 'Invalid API key',
  });
}

/**
 * An address that has spent its failed authentications gets no lookup for a key this process
 * never accepted: 429 rather than 401, so a valid key's owner behind that address (a shared
 * NAT) is told to retry, not that the key is wrong.
 */
async function refuseSpentAddress(
  failures: FailureBudget,
  client: string,
  state: RequestState,
  { metrics }: { metrics: Pick<ServiceMetrics, 'authRefusals'> },
): Promise<void> {
  const retryAfter = await failures.exhausted(client);
  if (retryAfter === undefined) return;
  metrics.authRefusals.inc({ reason: 'address_limited' });
  state.headers['retry-after'] = String(retryAfter);
  throw new TRPCError({
    code: 'TOO_MANY_REQUESTS',
    message: `Too many failed authentications from this address; retry after ${retryAfter} s`,
  });
}
