import FindMyWay from 'find-my-way';
import type { z } from 'zod';
import type { AnyOperation, Deprecation, RestBinding } from '../../../operations/define.js';
import type { PathParams } from '../pipeline/endpoint.js';

export interface RestRoute {
  binding: RestBinding;
  operation: AnyOperation;
  /** The tRPC path of the same operation, e.g. `pets.get`. */
  procedure: string;
  /** The template's parameter names, e.g. `['petId']` for `/pets/{petId}`. */
  pathParams: readonly string[];
  /** Query and path parameters that the input schema declares as numbers. */
  numericParams: ReadonlySet<string>;
  /** The input is void: no body, no query. */
  inputless: boolean;
  /** A deprecated operation's `Deprecation` and `Sunset` fields, formatted once. */
  deprecationFields: Readonly<Record<string, string>> | undefined;
}

export type RouteMatch<E> =
  | { kind: 'found'; route: RestRoute; endpoint: E; params: PathParams }
  | { kind: 'wrong-method'; allow: string[] }
  | { kind: 'none' };

interface Stored<E> {
  route: RestRoute;
  endpoint: E;
}

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
};

/** The schema under optional, default, nullable and pipe wrappers. */
function unwrap(schema: z.ZodType): Def {
  let def = schema.def as Def;
  for (;;) {
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!inner) return def;
    def = inner.def;
  }
}

function numericKeysOf(input: z.ZodType): Set<string> {
  const shape = unwrap(input).shape ?? {};
  return new Set(
    Object.entries(shape)
      .filter(([, schema]) => unwrap(schema).type === 'number')
      .map(([key]) => key),
  );
}

/** An operation whose input is void (as trpc-to-openapi reads it: no request body documented). */
function takesNoInput(input: z.ZodType): boolean {
  const { type } = input.def as Def;
  return type === 'void' || type === 'undefined';
}

const TEMPLATE_PARAM = /\{([^}]+)\}/g;

/** The REST routes of every operation that has a REST binding. */
function restRoutesOf(operations: ReadonlyMap<string, AnyOperation>): RestRoute[] {
  return [...operations].flatMap(([procedure, operation]) => {
    const binding = operation.rest;
    if (!binding) return [];
    const pathParams = [...binding.path.matchAll(TEMPLATE_PARAM)].map((match) => match[1] ?? '');
    return [
      {
        binding,
        operation,
        procedure,
        pathParams,
        numericParams: numericKeysOf(operation.input),
        inputless: takesNoInput(operation.input),
        deprecationFields: binding.deprecation && deprecationFields(binding.deprecation),
      },
    ];
  });
}

/**
 * find-my-way decodes the path before it matches it. Sent through it as `%25`, `%3F` and `%23`,
 * a `%`, `?` or `#` of the path as sent comes back out of that decoding unchanged: the static
 * segments are compared with the path exactly as sent (`/p%65ts` is no `/pets`), and each
 * parameter comes back still percent-encoded, so that input.ts alone decides what malformed
 * encoding means (a 400), as with any other value.
 */
const DECODED_BY_ROUTER = /[%?#]/;
const ENCODED_FOR_ROUTER = /[%?#]/g;
const encodeForRouter = (char: string) => (char === '%' ? '%25' : char === '?' ? '%3F' : '%23');

/**
 * The routes in a radix tree (find-my-way, Fastify's router): a static segment is preferred
 * over a parameter at the same place, whatever order the operations are defined in. Each
 * route's endpoint is built here once, and a match finds it with the route.
 */
export function createRestRouter<E>(
  operations: ReadonlyMap<string, AnyOperation>,
  endpointOf: (route: RestRoute) => E,
) {
  const router = FindMyWay({
    // Paths are matched exactly as sent: no case folding, no slash is ignored, and a parameter
    // may be as long as the request line allows, as before.
    caseSensitive: true,
    ignoreTrailingSlash: false,
    ignoreDuplicateSlashes: false,
    maxParamLength: Infinity,
  });
  const routes = restRoutesOf(operations);
  const noHandler = () => undefined;
  for (const route of routes) {
    const path = route.binding.path.replace(TEMPLATE_PARAM, ':$1');
    const stored: Stored<E> = { route, endpoint: endpointOf(route) };
    router.on(route.binding.method, path, noHandler, stored);
  }
  // Generated code rather than the tree walk: half the CPU per lookup (docs/performance.md).
  router.compile();
  /** In the order the surface first uses them, which is the order of every path's Allow. */
  const methods = [...new Set(routes.map((route) => route.binding.method))];

  const lookup = (method: RestBinding['method'], path: string): RouteMatch<E> | undefined => {
    const found = router.find(method, path);
    if (!found) return undefined;
    const { route, endpoint } = found.store as Stored<E>;
    // find-my-way lets a parameter be empty (`/pets/`); a path template's never is.
    for (const key of route.pathParams) if (!found.params[key]) return undefined;
    return { kind: 'found', route, endpoint, params: found.params };
  };

  const match = (method: string, sent: string): RouteMatch<E> => {
    const path = DECODED_BY_ROUTER.test(sent)
      ? sent.replace(ENCODED_FOR_ROUTER, encodeForRouter)
      : sent;
    // Only the surface's own methods reach find-my-way: its trees are keyed by method name.
    const own = methods.find((candidate) => candidate === method);
    const found = own && lookup(own, path);
    if (found) return found;
    // find-my-way cannot tell which other methods a path has: each is asked in turn.
    const allow = methods.filter((other) => other !== method && lookup(other, path));
    return allow.length > 0 ? { kind: 'wrong-method', allow } : { kind: 'none' };
  };
  return { match, methods };
}

/** RFC 9745 and RFC 8594 fields of a deprecated operation; `deprecationLink` adds the third. */
function deprecationFields(deprecation: Deprecation): Record<string, string> {
  return {
    deprecation: `@${Math.floor(deprecation.deprecatedAt.getTime() / 1000)}`,
    sunset: deprecation.sunset.toUTCString(),
  };
}

/** RFC 8594's `Link` of a deprecated operation: the docs page, on the caller's origin. */
export function deprecationLink(origin: string): string {
  return `<${origin}/docs>; rel="deprecation"`;
}
