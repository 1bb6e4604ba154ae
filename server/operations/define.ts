import type { z } from 'zod';
import type { ApiKeyScope } from '../../db/queries/api-keys.js';
import type { Subscription } from '../domain/events/subscription.js';
import type { OperationContext } from './context.js';
import type { Tag } from './tags.js';

export type Stability = 'stable' | 'beta' | 'experimental';

/** Statuses an operation documents beyond those every authenticated operation can answer. */
export type ErrorStatus = 400 | 403 | 404 | 409 | 410 | 412 | 413 | 415 | 422 | 429;

/** The media types a JSON body may be sent as; PATCH also takes a merge patch's own type. */
export type BodyMediaType = 'application/json' | 'application/merge-patch+json';

/** RFC 9745 and RFC 8594: when an operation was deprecated and when it goes away. */
export interface Deprecation {
  deprecatedAt: Date;
  sunset: Date;
}

/** How an operation is offered over REST under /v1, and described in the OpenAPI document. */
export interface RestBinding {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The OpenAPI path template relative to the /v1 base, e.g. `/pets/{petId}`. */
  path: `/${string}`;
  operationId: string;
  summary: string;
  description: string;
  tags: Tag[];
  stability: Stability;
  successStatus: 200 | 201 | 202 | 204;
  successDescription: string;
  errorResponses: Partial<Record<ErrorStatus, string>>;
  /** A GET whose answer carries an ETag, answered 304 when If-None-Match matches it. */
  conditionalRead?: boolean;
  /** Defaults to JSON only. */
  bodyTypes?: readonly BodyMediaType[];
  deprecation?: Deprecation;
  requestHeaders?: z.ZodObject;
  responseHeaders?: z.ZodObject;
}

export type OperationKind = 'query' | 'mutation';

/** What every registry entry declares, whatever it runs: who may call it, its schemas, its route. */
interface Definition<I extends z.ZodType, O extends z.ZodType> {
  /** The key scope the caller needs. */
  scope: ApiKeyScope;
  input: I;
  /** For a stream, the schema of each event it sends. */
  output: O;
  /** Absent for an operation offered to tRPC clients only. */
  rest?: RestBinding;
  /**
   * A read a hot standby may serve (server/operations/perform.ts): only those the contract
   * lists, whose statements go through `ctx.db` alone.
   */
  replicaRead?: boolean;
}

/**
 * One operation, defined once: from it come the tRPC procedure (server/surfaces/trpc/procedures.ts), the
 * REST route and the fast `/trpc` path (server/surfaces/http), and the OpenAPI document
 * (server/surfaces/openapi). The handler is the only code that differs between operations.
 */
export interface Operation<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  K extends OperationKind = OperationKind,
> extends Definition<I, O> {
  kind: K;
  // A method, so that an operation with particular schemas is also an AnyOperation.
  handler(ctx: OperationContext, input: z.output<I>): Promise<z.input<O>>;
}

/**
 * A stream of events, in the same registry as the operations: a tRPC subscription, and over
 * REST a `text/event-stream` answer. It opens a Subscription rather than answering once, so
 * the surfaces serve it with their own streaming code, from this one definition.
 */
export interface StreamOperation<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
> extends Definition<I, O> {
  kind: 'subscription';
  open(ctx: OperationContext, input: z.output<I>): Promise<Subscription>;
}

/** An entry of the registry (server/operations/registry.ts): every surface reads these. */
export type AnyOperation = Operation | StreamOperation;

export function defineQuery<I extends z.ZodType, O extends z.ZodType>(
  operation: Omit<Operation<I, O, 'query'>, 'kind'>,
): Operation<I, O, 'query'> {
  return { kind: 'query', ...operation };
}

export function defineMutation<I extends z.ZodType, O extends z.ZodType>(
  operation: Omit<Operation<I, O, 'mutation'>, 'kind'>,
): Operation<I, O, 'mutation'> {
  return { kind: 'mutation', ...operation };
}

export function defineSubscription<I extends z.ZodType, O extends z.ZodType>(
  stream: Omit<StreamOperation<I, O>, 'kind'>,
): StreamOperation<I, O> {
  return { kind: 'subscription', ...stream };
}
