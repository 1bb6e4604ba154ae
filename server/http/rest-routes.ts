import {
  forEachOpenApiProcedure,
  getInputOutputParsers,
  getPathParameters,
  getPathRegExp,
  instanceofZodTypeKind,
  normalizePath,
  unwrapZodType,
  type OpenApiProcedureRecord,
  type OpenApiRouter,
} from 'trpc-to-openapi';
import type { Meta } from '../trpc.js';

export interface RestRoute {
  method: string;
  /** The OpenAPI path template, e.g. `/pets/{petId}`; also the route name in logs. */
  template: string;
  pattern: RegExp;
  /** The template's parameter names, in the order of the pattern's captures. */
  pathParams: readonly string[];
  /** The tRPC procedure path, e.g. `pets.get`. */
  procedure: string;
  type: 'query' | 'mutation';
  successStatus: number;
  deprecated: boolean;
  acceptsBody: boolean;
  /** Query and path parameters that the input schema declares as numbers. */
  numericParams: ReadonlySet<string>;
}

export type RouteMatch =
  /** `captures[i + 1]` is the still percent-encoded value of `route.pathParams[i]`. */
  | { kind: 'found'; route: RestRoute; captures: RegExpExecArray }
  | { kind: 'wrong-method'; allow: string[] }
  | { kind: 'none' };

function numericKeysOf(inputParser: unknown): Set<string> {
  const shape =
    (unwrapZodType(inputParser as never, true) as { shape?: Record<string, unknown> }).shape ?? {};
  return new Set(
    Object.entries(shape)
      .filter(([, schema]) =>
        instanceofZodTypeKind(unwrapZodType(schema as never, false), 'number'),
      )
      .map(([key]) => key),
  );
}

/**
 * The REST routes, read from each procedure's trpc-to-openapi meta: the same declaration the
 * OpenAPI document is generated from, so the two cannot drift apart.
 */
export function restRoutesOf(router: OpenApiRouter): RestRoute[] {
  const routes: RestRoute[] = [];
  forEachOpenApiProcedure(
    router._def.procedures as OpenApiProcedureRecord,
    ({ path, procedure, meta }) => {
      const { openapi, successStatus = 200 } = meta as Meta & {
        openapi: NonNullable<Meta['openapi']>;
      };
      const template = normalizePath(openapi.path);
      routes.push({
        method: openapi.method,
        template,
        // trpc-to-openapi's own matcher is case-insensitive; paths here are matched exactly.
        pattern: new RegExp(getPathRegExp(template).source),
        pathParams: getPathParameters(template),
        procedure: path,
        type: procedure._def.type === 'mutation' ? 'mutation' : 'query',
        successStatus,
        deprecated: openapi.deprecated === true,
        acceptsBody: openapi.method !== 'GET' && openapi.method !== 'DELETE',
        numericParams: numericKeysOf(getInputOutputParsers(procedure as never).inputParser),
      });
    },
  );
  return routes;
}

export function matchRoute(routes: readonly RestRoute[], method: string, path: string): RouteMatch {
  const allow: string[] = [];
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    if (route.method === method) return { kind: 'found', route, captures: match };
    allow.push(route.method);
  }
  return allow.length > 0 ? { kind: 'wrong-method', allow } : { kind: 'none' };
}
