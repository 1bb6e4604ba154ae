import { TRPCError } from '@trpc/server';
import type { AnyOperation } from '../../../operations/define.js';
import { execute } from '../../../operations/execute.js';
import { ifNoneMatchMatches } from '../../../domain/versions/etag.js';
import { refuseBody, refuseUnreadBody } from '../pipeline/body.js';
import {
  NO_PATH_PARAMS,
  refusal,
  type Call,
  type Endpoint,
  type EndpointMatch,
} from '../pipeline/endpoint.js';
import type { RequestState } from '../pipeline/request-state.js';
import { sendEmpty, sendJson } from '../pipeline/respond.js';
import { eventStreamEndpoint } from './event-stream.js';
import { bodyInput, checkNoQuery, pathInput, queryInput } from './input.js';
import { createRestRouter, deprecationLink, type RestRoute } from './routes.js';

const JSON_BODY = ['application/json'] as const;

/** An input whose every field is a path parameter (rotateWebhookSecret): it takes no body. */
function pathOnly({ operation, pathParams }: RestRoute): boolean {
  const { shape } = operation.input as { shape?: Record<string, unknown> };
  return shape !== undefined && Object.keys(shape).every((key) => pathParams.includes(key));
}

/** The endpoint of one route, built once: what differs between its requests comes in the Call. */
function endpointOf(route: RestRoute): Endpoint {
  const { binding, operation, inputless } = route;
  // A stream writes its own answer, event by event: the one kind that does not run `execute`.
  if (operation.kind === 'subscription') return eventStreamEndpoint(operation, binding);
  // RFC 9110 §9.3.5 gives a DELETE body no meaning, and a POST that takes no input has none to
  // give it either: one sent is refused, not ignored. So is a GET's (§9.3.1), unread.
  const refusesBody =
    binding.method === 'DELETE' || (binding.method === 'POST' && (inputless || pathOnly(route)));
  const refusesGetBody = binding.method === 'GET';
  const takesBody = (binding.method === 'POST' || binding.method === 'PATCH') && !refusesBody;
  return {
    name: binding.path,
    operation: binding.operationId,
    calls: 1,
    bodyTypes: takesBody ? (binding.bodyTypes ?? JSON_BODY) : undefined,
    serve: async ({ req, res, state, ctx, body, params }: Call) => {
      if (refusesBody) await refuseBody(req);
      if (refusesGetBody) refuseUnreadBody(req, state.headers);
      if (inputless) checkNoQuery(state.query);
      const input = body
        ? bodyInput(route, state.query, body, params)
        : inputless
          ? undefined
          : { ...queryInput(route, state.query), ...pathInput(route, params) };
      const output = await execute(operation, ctx, input);
      if (
        binding.conditionalRead &&
        ifNoneMatchMatches(req.headers['if-none-match'], state.headers.etag)
      ) {
        sendEmpty(res, 304, state.headers);
      } else if (binding.successStatus === 204) {
        sendEmpty(res, 204, state.headers);
      } else {
        sendJson(res, binding.successStatus, output, state.headers);
      }
    },
  };
}

/**
 * The REST surface under /v1: each operation's route from its definition, run by the same
 * `execute` as the fast `/trpc` path. A deprecated operation says so on every answer, refusals
 * (401, 429) included, since the route is matched before the caller is authenticated.
 */
export function createRestEndpoints(operations: ReadonlyMap<string, AnyOperation>) {
  const { match: matchRoute, methods } = createRestRouter(operations, endpointOf);

  const match = (state: RequestState): EndpointMatch => {
    const path = state.path.slice('/v1'.length) || '/';
    const found = matchRoute(state.method, path);
    if (found.kind === 'none') return refused(refusal('unmatched', () => notFound(state)));
    if (found.kind === 'wrong-method') return refused(wrongMethod(state, found.allow));
    const { deprecationFields } = found.route;
    if (deprecationFields) {
      Object.assign(state.headers, deprecationFields, { link: deprecationLink(state.origin) });
    }
    return { public: false, endpoint: found.endpoint, params: found.params };
  };
  return { match, methods };
}

const refused = (endpoint: Endpoint): EndpointMatch => ({
  public: false,
  endpoint,
  params: NO_PATH_PARAMS,
});

function wrongMethod(state: RequestState, allow: string[]): Endpoint {
  return refusal('unmatched', () => {
    state.headers.allow = allow.join(', ');
    return new TRPCError({
      code: 'METHOD_NOT_SUPPORTED',
      message: `${state.method} is not supported on ${state.path}; allowed: ${state.headers.allow}`,
    });
  });
}

export function notFound(state: RequestState): TRPCError {
  return new TRPCError({
    code: 'NOT_FOUND',
    message: `No route for ${state.method} ${state.path}`,
  });
}
