import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import type { AnyOperation, RestBinding } from '../operations/define.js';
import { ErrorSchema } from '../schemas/error.js';
import { DEPRECATION, ERROR_HEADERS, RATE_LIMIT, REQUEST_ID, SHARED_HEADERS } from './headers.js';

export interface DocumentOptions {
  productionUrl: string;
  stagingUrl?: string | undefined;
}

type Json = Record<string, unknown>;
type SchemaMap = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>;

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** What every authenticated operation can answer, whatever it does. */
const COMMON_ERRORS: Record<number, string> = {
  401: 'Missing or invalid API key.',
  429: "The API key has spent its window's request quota; retry after `Retry-After` seconds.",
  500: 'Unexpected server error.',
  503: 'The database is unavailable; retry shortly.',
};

const TAGS = [
  { name: 'pets', description: 'The animals offered in the store.' },
  { name: 'store', description: 'Orders for the animals (beta).' },
];

const STABILITY: Record<RestBinding['stability'], string> = {
  stable: 'Stability: stable. Changes to it keep to the compatibility policy of version 1.',
  beta: 'Stability: beta. It may still change before it is declared stable.',
  experimental: 'Stability: experimental. It may change or go away in any release.',
};

function successOf(binding: RestBinding, generated: Json | undefined): Json {
  // An answer without a body documents none, whatever the output schema renders to.
  if (binding.successStatus !== 204) return generated ?? {};
  return { description: binding.successDescription };
}

function responsesOf(binding: RestBinding, generated: Record<string, Json>): Record<string, Json> {
  const success = successOf(binding, generated['200']);
  const responses: Record<string, Json> = { [binding.successStatus]: success };
  if (binding.conditionalRead) {
    responses['304'] = {
      description: '`If-None-Match` names the current version: no body.',
      headers: { ...(success.headers as Json | undefined) },
    };
  }
  const errors = { ...binding.errorResponses, ...COMMON_ERRORS };
  for (const [status, description] of Object.entries(errors).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    responses[status] = {
      description,
      headers: { ...ERROR_HEADERS[status] },
      content: { 'application/json': { schema: ERROR_REF } },
    };
  }
  for (const [status, response] of Object.entries(responses).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    response.headers = {
      ...(response.headers as Json | undefined),
      // An unauthenticated caller has no bucket, so a 401 has no quota to report.
      ...(status === '401' ? {} : RATE_LIMIT),
      ...(binding.deprecation ? DEPRECATION : {}),
      ...REQUEST_ID,
    };
  }
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/** A strictObject refuses unknown fields: its catchall is never. */
function refusesUnknownFields(input: AnyOperation['input']): boolean {
  const { catchall } = input.def as { catchall?: { def: { type: string } } };
  return catchall?.def.type === 'never';
}

/**
 * The library inlines the body schema (rendered for input: defaulted fields optional). Keep that
 * rendering as the named component, point the body at it, under every media type it takes.
 * When it drops path parameters from a refined object it rebuilds a plain z.object, losing
 * `additionalProperties: false`; the input still refuses unknown fields, so the body says so.
 */
function nameRequestBody(operation: Json, { rest, input }: AnyOperation, named: SchemaMap): void {
  const id = input.meta()?.id;
  const body = operation.requestBody as { content?: Record<string, Json> } | undefined;
  const media = body?.content?.['application/json'];
  if (typeof id !== 'string' || !body || !media) return;
  const rendered = media.schema as SchemaMap[string];
  named[id] = refusesUnknownFields(input) ? { ...rendered, additionalProperties: false } : rendered;
  const schema = { $ref: `#/components/schemas/${id}` };
  const types = rest?.bodyTypes ?? ['application/json'];
  body.content = Object.fromEntries(types.map((type) => [type, { schema }]));
}

/**
 * What trpc-to-openapi cannot express, applied to its output in one place from each
 * operation's definition: the real success status, the contract's Error body on every error
 * status, named request bodies, response headers, stability, and the two deployments.
 */
function applyContractDetails(
  document: OpenAPIObject,
  operations: ReadonlyMap<string, AnyOperation>,
  options: DocumentOptions,
): OpenAPIObject {
  const namedBodies: SchemaMap = {};
  for (const definition of operations.values()) {
    const binding = definition.rest;
    if (!binding) continue;
    const path = document.paths?.[binding.path] as Json | undefined;
    const operation = path?.[binding.method.toLowerCase()] as Json | undefined;
    if (!operation) throw new Error(`No generated operation for ${binding.method} ${binding.path}`);
    operation.responses = responsesOf(binding, operation.responses as Record<string, Json>);
    operation['x-stability'] = binding.stability;
    operation.description = `${binding.description}\n\n${STABILITY[binding.stability]}`;
    nameRequestBody(operation, definition, namedBodies);
  }
  // trpc-to-openapi's own error schemas are replaced by Error everywhere above.
  const schemas = Object.fromEntries(
    Object.entries(document.components?.schemas ?? {}).filter(
      ([name]) => !name.startsWith('error.'),
    ),
  );
  return {
    ...document,
    tags: TAGS,
    servers: [
      { url: options.productionUrl, description: 'Production' },
      ...(options.stagingUrl ? [{ url: options.stagingUrl, description: 'Staging' }] : []),
    ],
    components: {
      ...document.components,
      schemas: { ...schemas, ...namedBodies },
      headers: SHARED_HEADERS,
    },
  };
}

/** The OpenAPI document: generated by trpc-to-openapi from the router, completed from the operations. */
export function buildOpenApiDocument(
  router: OpenApiRouter,
  operations: ReadonlyMap<string, AnyOperation>,
  options: DocumentOptions,
): OpenAPIObject {
  const generated = generateOpenApiDocument(router, {
    title: 'Pet Store',
    description:
      'Inventory of the animals offered in the store. Every operation needs `Authorization: Bearer <API key>`.',
    version: '1.0.0',
    baseUrl: options.productionUrl,
    docsUrl: '/docs',
    tags: TAGS.map((tag) => tag.name),
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' },
    },
    defs: { Error: ErrorSchema },
  });
  return applyContractDetails(generated, operations, options);
}
