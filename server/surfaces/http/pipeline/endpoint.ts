import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TRPCError } from '@trpc/server';
import type { Context } from '../../../operations/context.js';
import type { JsonBody } from './body.js';
import type { RequestState } from './request-state.js';

/** A REST route's path parameters by name, each still percent-encoded as sent. */
export type PathParams = Readonly<Record<string, string | undefined>>;

/** The path parameters of a request whose route has none: `/trpc` calls, refusals. */
export const NO_PATH_PARAMS: PathParams = Object.freeze({});

/** One authenticated request, once the pipeline has read everything an endpoint needs. */
export interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  state: RequestState;
  ctx: Context;
  /** The checked JSON body, for an endpoint that takes one. */
  body: JsonBody | undefined;
  /**
   * What the request's path filled in of its route's template: an endpoint is built once per
   * route, so what is particular to the request comes with the call.
   */
  params: PathParams;
}

/** What a request is routed to: an operation on either surface, or a tRPC call for the adapter. */
export interface Endpoint {
  /** The route's name in logs: a path template or a procedure path. */
  name: string;
  /**
   * The operation's name in metrics (operationId, tRPC procedure): one of a known few, never
   * taken from the request as sent, so that a caller cannot grow the metrics without bound.
   */
  operation: string;
  /** Calls the request makes, each counted against the key's rate limit (a batch makes several). */
  calls: number;
  /** The media types of the JSON body it reads; undefined when it reads none. */
  bodyTypes: readonly string[] | undefined;
  /** Takes a stream ticket (`?ticket=`) in place of the Authorization header. */
  acceptsTicket?: boolean;
  /** A request without a body is a call without input rather than a 400 (tRPC's wire). */
  bodyOptional?: boolean;
  serve(call: Call): Promise<void>;
}

/** An endpoint that needs no key: health, readiness, the OpenAPI document, the docs page. */
export interface PublicEndpoint {
  name: string;
  serve(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void>;
}

/** A request routed to an endpoint that needs a key, with what its path filled in. */
export interface EndpointMatch {
  public: false;
  endpoint: Endpoint;
  params: PathParams;
}

export type Match = { public: true; endpoint: PublicEndpoint } | EndpointMatch;

/**
 * A request refused for what its target says (no such route, a bad query, a batch too large):
 * refused only once the caller is authenticated, and counted as one request, so that an
 * anonymous caller learns nothing about which paths exist.
 */
export function refusal(name: string, error: () => TRPCError): Endpoint {
  return {
    name,
    operation: 'unmatched',
    calls: 1,
    bodyTypes: undefined,
    serve: () => Promise.reject(error()),
  };
}
