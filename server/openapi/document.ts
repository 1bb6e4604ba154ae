import {
  forEachOpenApiProcedure,
  generateOpenApiDocument,
  getInputOutputParsers,
  normalizePath,
  type OpenAPIObject,
  type OpenApiProcedure,
  type OpenApiProcedureRecord,
  type OpenApiRouter,
} from 'trpc-to-openapi';
import type { ZodType } from 'zod';
import { ErrorSchema } from '../schemas/error.js';
import type { Meta } from '../trpc.js';
import { DEPRECATION, ERROR_HEADERS, RATE_LIMIT, REQUEST_ID, SHARED_HEADERS } from './headers.js';

export interface DocumentOptions {
  productionUrl: string;
  stagingUrl?: string | undefined;
}

type Json = Record<string, unknown>;
type SchemaMap = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>;

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/**
 * What trpc-to-openapi cannot express, applied to its output in one place: the real success
 * status, the contract's Error body on every documented error status, named request bodies,
 * response headers, and the two deployments.
 */
function applyContractDetails(
  document: OpenAPIObject,
  router: OpenApiRouter,
  options: DocumentOptions,
): OpenAPIObject {
  const namedBodies: SchemaMap = {};
  forEachOpenApiProcedure(
    router._def.procedures as OpenApiProcedureRecord,
    ({ procedure, meta }) => {
      const { openapi, successStatus = 200 } = meta as Meta & {
        openapi: NonNullable<Meta['openapi']>;
      };
      const path = document.paths?.[normalizePath(openapi.path)] as Json | undefined;
      const operation = path?.[openapi.method.toLowerCase()] as Json | undefined;
      if (!operation)
        throw new Error(`No generated operation for ${openapi.method} ${openapi.path}`);

      const generated = operation.responses as Record<string, Json>;
      const success = generated['200'] ?? {};
      const responses: Record<string, Json> = { [successStatus]: success };
      for (const [status, description] of Object.entries(openapi.errorResponses ?? {})) {
        responses[status] = {
          description,
          headers: { ...ERROR_HEADERS[status] },
          content: { 'application/json': { schema: ERROR_REF } },
        };
      }
      for (const [status, response] of Object.entries(responses)) {
        response.headers = {
          ...(response.headers as Json | undefined),
          // An unauthenticated caller has no bucket, so a 401 has no quota to report.
          ...(status === '401' ? {} : RATE_LIMIT),
          ...(openapi.deprecated ? DEPRECATION : {}),
          ...REQUEST_ID,
        };
      }
      operation.responses = responses;
      nameRequestBody(operation, procedure, namedBodies);
    },
  );

  // trpc-to-openapi's own error schemas are replaced by Error everywhere above.
  const schemas = Object.fromEntries(
    Object.entries(document.components?.schemas ?? {}).filter(
      ([name]) => !name.startsWith('error.'),
    ),
  );
  return {
    ...document,
    tags: [{ name: 'pets', description: 'The animals offered in the store.' }],
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

/**
 * The library inlines the body schema (rendered for input: defaulted fields optional). Keep that
 * rendering as the named component and point the body at it.
 */
function nameRequestBody(operation: Json, procedure: OpenApiProcedure, named: SchemaMap): void {
  const { inputParser } = getInputOutputParsers(procedure);
  const id = (inputParser as ZodType).meta()?.id;
  const content = (operation.requestBody as { content?: Record<string, Json> } | undefined)
    ?.content;
  if (typeof id !== 'string' || !content) return;
  for (const media of Object.values(content)) {
    named[id] = media.schema as SchemaMap[string];
    media.schema = { $ref: `#/components/schemas/${id}` };
  }
}

export function buildOpenApiDocument(
  router: OpenApiRouter,
  options: DocumentOptions,
): OpenAPIObject {
  const generated = generateOpenApiDocument(router, {
    title: 'Pet Store',
    description:
      'Inventory of the animals offered in the store. Every operation needs `Authorization: Bearer <API key>`.',
    version: '1.0.0',
    baseUrl: options.productionUrl,
    docsUrl: '/docs',
    tags: ['pets'],
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' },
    },
    defs: { Error: ErrorSchema },
  });
  return applyContractDetails(generated, router, options);
}
