import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { validate } from '../../../domain/schemas/validate.js';
import type { JsonBody } from '../pipeline/body.js';
import type { PathParams } from '../pipeline/endpoint.js';
import { queryParameters } from '../pipeline/query-string.js';
import type { RestRoute } from './routes.js';

const INTEGER = /^-?\d+$/;
const NO_QUERY = z.strictObject({});

/** A record without a prototype: a parameter named `__proto__` is a key like any other. */
const record = (): Record<string, unknown> => Object.create(null) as Record<string, unknown>;

function valueOf(route: RestRoute, key: string, raw: string): unknown {
  return route.numericParams.has(key) && INTEGER.test(raw) ? Number(raw) : raw;
}

/** Query parameters by name; a repeated one stays visible as an array, so validation refuses it. */
export function queryInput(route: RestRoute | undefined, query: string): Record<string, unknown> {
  const input = record();
  if (query === '') return input;
  for (const [key, raw] of queryParameters(query)) {
    const value = route ? valueOf(route, key, raw) : raw;
    const previous = input[key];
    if (previous === undefined) input[key] = value;
    else
      input[key] = Array.isArray(previous)
        ? [...(previous as unknown[]), value]
        : [previous, value];
  }
  return input;
}

/**
 * The query of an endpoint outside the operations' own validation (the event stream, a body
 * operation's empty query): unknown and repeated parameters are a 400, named in `issues`.
 */
export function checkedQuery<T>(schema: z.ZodType<T>, query: string): T {
  const parsed = validate(schema, queryInput(undefined, query));
  if (!parsed.success) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: 'Unknown or repeated query parameters',
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/** An operation that takes no input takes no query parameter either. */
export function checkNoQuery(query: string): void {
  checkedQuery(NO_QUERY, query);
}

/** Path parameters, decoded here from the router's still percent-encoded values. */
export function pathInput(route: RestRoute, params: PathParams): Record<string, unknown> {
  const input = record();
  for (const key of route.pathParams) {
    // The router matches a route only with every parameter present; `?? ''` satisfies the type.
    const encoded = params[key] ?? '';
    let raw: string;
    try {
      raw = decodeURIComponent(encoded);
    } catch {
      throw new TRPCError({
        code: 'BAD_REQUEST',
        message: `Path parameter ${key} is not valid percent-encoding`,
      });
    }
    input[key] = valueOf(route, key, raw);
  }
  return input;
}

/** An operation with a body takes no query parameters; path parameters join the body's fields. */
export function bodyInput(
  route: RestRoute,
  query: string,
  body: JsonBody,
  params: PathParams,
): unknown {
  checkedQuery(NO_QUERY, query);
  if (route.pathParams.length === 0) return body.value;
  const { value } = body;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  // The path names the resource; the same name in the body is a field the body does not have,
  // refused as every unknown field is, rather than silently overwritten by the path's value.
  const named = route.pathParams.filter((key) => Object.hasOwn(value, key));
  if (named.length > 0) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      cause: new z.ZodRealError([
        {
          code: 'unrecognized_keys',
          keys: named,
          path: [],
          message: 'Unrecognized keys',
          input: value as Record<string, unknown>,
        },
      ]),
    });
  }
  return { ...value, ...pathInput(route, params) };
}
