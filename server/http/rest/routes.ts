import type { z } from 'zod';
import type { AnyOperation, Deprecation, RestBinding } from '../../operations/define.js';

export interface RestRoute {
  binding: RestBinding;
  operation: AnyOperation;
  /** The tRPC path of the same operation, e.g. `pets.get`. */
  procedure: string;
  pattern: RegExp;
  /** The template's parameter names, in the order of the pattern's captures. */
  pathParams: readonly string[];
  /** Query and path parameters that the input schema declares as numbers. */
  numericParams: ReadonlySet<string>;
}

export type RouteMatch =
  /** `captures[i + 1]` is the still percent-encoded value of `route.pathParams[i]`. */
  | { kind: 'found'; route: RestRoute; captures: RegExpExecArray }
  | { kind: 'wrong-method'; allow: string[] }
  | { kind: 'none' };

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
export function takesNoInput(input: z.ZodType): boolean {
  const { type } = input.def as Def;
  return type === 'void' || type === 'undefined';
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/pets/{petId}` matches `/pets/` and one segment; paths are matched exactly as sent. */
function patternOf(template: string): { pattern: RegExp; pathParams: string[] } {
  const pathParams: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const param = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (!param) return escapeRegExp(part);
      pathParams.push(param);
      return '([^/]+)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`), pathParams };
}

/** The REST routes of every operation that has a REST binding. */
export function restRoutesOf(operations: ReadonlyMap<string, AnyOperation>): RestRoute[] {
  return [...operations].flatMap(([procedure, operation]) => {
    const binding = operation.rest;
    if (!binding) return [];
    return [
      {
        binding,
        operation,
        procedure,
        ...patternOf(binding.path),
        numericParams: numericKeysOf(operation.input),
      },
    ];
  });
}

export function matchRoute(routes: readonly RestRoute[], method: string, path: string): RouteMatch {
  const allow: string[] = [];
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    if (route.binding.method === method) return { kind: 'found', route, captures: match };
    allow.push(route.binding.method);
  }
  return allow.length > 0 ? { kind: 'wrong-method', allow } : { kind: 'none' };
}

/** RFC 9745 and RFC 8594 headers of a deprecated operation; `Link` names the docs page. */
export function deprecationHeaders(
  deprecation: Deprecation,
  origin: string,
): Record<string, string> {
  return {
    deprecation: `@${Math.floor(deprecation.deprecatedAt.getTime() / 1000)}`,
    sunset: deprecation.sunset.toUTCString(),
    link: `<${origin}/docs>; rel="deprecation"`,
  };
}
