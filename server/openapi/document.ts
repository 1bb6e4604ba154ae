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
import { NewPetSchema } from '../schemas/pet.js';
import type { Meta } from '../trpc.js';
import { DEPRECATED_AT_UNIX, SUNSET_HTTP_DATE } from '../http/deprecation.js';

export interface DocumentOptions {
  productionUrl: string;
  stagingUrl?: string | undefined;
}

type Json = Record<string, unknown>;

const ERROR_REF = { $ref: '#/components/schemas/Error' };

const header = (description: string, example?: string) => ({
  description,
  schema: { type: 'string', ...(example ? { examples: [example] } : {}) },
});

const REQUEST_ID_HEADER = header(
  "Identifies this request in the service logs: the caller's own `X-Request-Id` when it sent a sane one, otherwise generated.",
);
const WWW_AUTHENTICATE_HEADER = header(
  'RFC 6750 challenge; carries `error="invalid_token"` when a key was sent but is not valid.',
  'Bearer realm="petstore", error="invalid_token"',
);
const RETRY_AFTER_HEADER = {
  ...header('Seconds until the rate-limit window resets (RFC 9110).', '42'),
  required: true,
};
/** draft-ietf-httpapi-ratelimit-headers; sent on every authenticated answer while limits are on. */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': header(
    'The per-key quota: `q` requests per window of `w` seconds.',
    '"default";q=600;w=60',
  ),
  RateLimit: header(
    'What is left of the quota: `r` requests remaining, `t` seconds until the window resets.',
    '"default";r=599;t=42',
  ),
};
/** Headers particular to one error status. */
const ERROR_HEADERS: Partial<Record<string, Json>> = {
  '401': { 'WWW-Authenticate': WWW_AUTHENTICATE_HEADER },
  '429': { 'Retry-After': RETRY_AFTER_HEADER },
};
const DEPRECATION_HEADERS = {
  Deprecation: header('RFC 9745: when this operation was deprecated.', `@${DEPRECATED_AT_UNIX}`),
  Sunset: header('RFC 8594: when this operation will be removed.', SUNSET_HTTP_DATE),
  Link: header(
    'Points at the documentation naming the replacement.',
    '<https://petstore.example/docs>; rel="deprecation"',
  ),
};

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
          ...(status === '401' ? {} : RATE_LIMIT_HEADERS),
          ...(openapi.deprecated ? DEPRECATION_HEADERS : {}),
          'X-Request-Id': REQUEST_ID_HEADER,
        };
      }
      operation.responses = responses;
      nameRequestBody(operation, procedure);
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
    servers: [
      { url: options.productionUrl, description: 'Production' },
      ...(options.stagingUrl ? [{ url: options.stagingUrl, description: 'Staging' }] : []),
    ],
    components: { ...document.components, schemas },
  };
}

/** The library inlines a copy of the body schema; point at the named component instead. */
function nameRequestBody(operation: Json, procedure: OpenApiProcedure): void {
  const { inputParser } = getInputOutputParsers(procedure);
  const id = (inputParser as ZodType).meta()?.id;
  const content = (operation.requestBody as { content?: Record<string, Json> } | undefined)
    ?.content;
  if (!id || !content) return;
  for (const media of Object.values(content)) media.schema = { $ref: `#/components/schemas/${id}` };
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
    defs: { NewPet: NewPetSchema, Error: ErrorSchema },
  });
  return applyContractDetails(generated, router, options);
}
