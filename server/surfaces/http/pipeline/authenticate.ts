import type { IncomingMessage } from 'node:http';
import { TRPCError } from '@trpc/server';
import {
  readBearer,
  type Authenticator,
  type Principal,
} from '../../../domain/auth/authenticator.js';
import type { FailureBudget } from '../../../domain/auth/failure-budget.js';
import type { StreamTickets } from '../../../domain/events/tickets.js';
import type { ServiceMetrics } from '../../../support/service-metrics.js';
import { clientAddress } from './client-address.js';
import type { RequestState } from './request-state.js';
import { repeatedMessage } from './singleton-headers.js';

const REALM = 'Bearer realm="petstore"';

export interface AuthenticationDeps {
  authenticator: Authenticator;
  authFailures?: FailureBudget | undefined;
  trustProxy: boolean;
  metrics: Pick<ServiceMetrics, 'authRefusals'>;
}

/** Why a request was refused, as the refusals metric counts it. */
type Refusal = 'missing' | 'invalid' | 'repeated';

export interface CredentialRules {
  /** The request carries two Authorization fields, and so no one credential. */
  repeated: boolean;
  /** The route takes a stream ticket (`?ticket=`) in place of the header. */
  tickets?: StreamTickets | undefined;
}

const CHALLENGE_ERRORS: Record<Refusal, string | undefined> = {
  missing: undefined,
  invalid: 'invalid_token',
  repeated: 'invalid_request',
};

function refuse(
  deps: AuthenticationDeps,
  state: RequestState,
  reason: Refusal,
  message: string,
): TRPCError {
  const error = CHALLENGE_ERRORS[reason];
  state.headers['www-authenticate'] = error ? `${REALM}, error="${error}"` : REALM;
  deps.metrics.authRefusals.inc({ reason });
  return new TRPCError({ code: 'UNAUTHORIZED', message });
}

/**
 * The caller behind the request's bearer key (or, where the route takes one, its stream
 * ticket), once per request, or 401 with the RFC 6750 challenge. A key lookup in the database
 * draws on the request's database budget.
 */
export async function authenticate(
  deps: AuthenticationDeps,
  req: IncomingMessage,
  state: RequestState,
  { repeated, tickets }: CredentialRules,
): Promise<Principal> {
  // RFC 6750 §3.1 names this invalid_request; 401 (not its suggested 400) because the caller
  // is not authenticated, and every 401 carries the challenge (RFC 9110 §11.6.1).
  if (repeated) throw refuse(deps, state, 'repeated', repeatedMessage('Authorization'));
  const ticket = tickets && ticketOf(deps, req, state);
  if (ticket !== undefined && tickets) return authenticateTicket(deps, req, state, tickets, ticket);
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
  throw refuse(
    deps,
    state,
    missing ? 'missing' : 'invalid',
    missing
      ? `Missing API key: send Authorization: Bearer <key>${tickets ? ', or ?ticket= from POST /v1/events/tickets' : ''}`
      : 'Invalid API key',
  );
}

/**
 * The `ticket` query parameter, if sent. Sent with an Authorization header, or twice, it is no
 * one credential (RFC 6750 §2: one method per request): refused as two Authorization fields are.
 */
function ticketOf(
  deps: AuthenticationDeps,
  req: IncomingMessage,
  state: RequestState,
): string | undefined {
  if (state.query === '') return undefined;
  const sent = new URLSearchParams(state.query).getAll('ticket');
  if (sent.length === 0) return undefined;
  if (sent.length > 1 || req.headers.authorization !== undefined) {
    throw refuse(
      deps,
      state,
      'repeated',
      'Send either Authorization or one ticket query parameter, not both or two',
    );
  }
  return sent[0];
}

/**
 * The key a stream ticket stands for, spending the ticket, while the key is still valid. A
 * ticket is one more secret to guess, so a wrong one counts against the client address as a
 * wrong key does, and an address that has spent its failures gets no statement at all.
 */
async function authenticateTicket(
  deps: AuthenticationDeps,
  req: IncomingMessage,
  state: RequestState,
  tickets: StreamTickets,
  ticket: string,
): Promise<Principal> {
  const { authFailures } = deps;
  const address = authFailures && clientAddress(req, deps.trustProxy);
  if (authFailures && address !== undefined)
    await refuseSpentAddress(authFailures, address, state, deps);
  const keyId = await tickets.redeem(ticket, state.budget);
  const principal = keyId && (await deps.authenticator.principalOf(keyId, state.budget));
  if (principal) {
    state.keyId = principal.keyId;
    return principal;
  }
  if (authFailures && address !== undefined) await authFailures.record(address);
  // Never the ticket itself in the message: answers are not logged, but clients may log them.
  throw refuse(
    deps,
    state,
    'invalid',
    'Invalid stream ticket: unknown, already used, expired, or its key was revoked; get a new one with POST /v1/events/tickets',
  );
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
