import type { OpenAPIObject } from 'trpc-to-openapi';

type Json = Record<string, unknown>;

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The header names the document gives callers and answers: what CORS must let through. */
export interface DocumentedHeaders {
  /** Every request header an operation reads: header parameters, credentials, body type. */
  request: string[];
  /** Every header an answer of an operation carries. */
  response: string[];
}

function operationsOf(document: OpenAPIObject): Json[] {
  return Object.values(document.paths ?? {}).flatMap((item) =>
    Object.entries(item as Json)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([, operation]) => operation as Json),
  );
}

/** A parameter, or the one under components.parameters that `$ref` names. */
function resolved(document: OpenAPIObject, parameter: Json): Json {
  const ref = parameter.$ref;
  if (typeof ref !== 'string') return parameter;
  const name = ref.slice('#/components/parameters/'.length);
  return (document.components?.parameters?.[name] ?? {}) as Json;
}

/** RFC 9110 §5.1: field names are case-insensitive; each is listed once, as first spelled. */
function unique(names: Iterable<string>): string[] {
  const seen = new Map<string, string>();
  for (const name of names) if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  return [...seen.values()];
}

export function documentedHeaders(document: OpenAPIObject): DocumentedHeaders {
  const request: string[] = [];
  const response: string[] = [];
  const schemes = Object.values(document.components?.securitySchemes ?? {}) as unknown as Json[];
  for (const scheme of schemes) {
    if (scheme.type === 'http') request.push('Authorization');
    if (scheme.type === 'apiKey' && scheme.in === 'header') request.push(String(scheme.name));
  }
  for (const operation of operationsOf(document)) {
    for (const parameter of (operation.parameters ?? []) as Json[]) {
      const found = resolved(document, parameter);
      if (found.in === 'header') request.push(String(found.name));
    }
    if (operation.requestBody) request.push('Content-Type');
    for (const answer of Object.values((operation.responses ?? {}) as Record<string, Json>)) {
      response.push(...Object.keys(answer.headers ?? {}));
    }
  }
  return { request: unique(request), response: unique(response) };
}
