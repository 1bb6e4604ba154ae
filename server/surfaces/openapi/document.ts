import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import type { AnyOperation } from '../../operations/define.js';
import { TAGS } from '../../operations/tags.js';
import { ErrorSchema } from '../../domain/schemas/error.js';
import { errorExamples } from './error-examples.js';
import { eventSchemas, eventStreamPath, STREAM_TICKET_SCHEME } from './event-stream.js';
import { responsesOf, STABILITY } from './responses.js';
import { POSITION_PARAMETER, SHARED_HEADERS } from './headers.js';
import { webhookRequests } from '../../webhooks/surfaces/openapi.js';

export interface DocumentOptions {
  productionUrl: string;
  stagingUrl?: string | undefined;
}

type Json = Record<string, unknown>;
type SchemaMap = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>;

const TAG_OBJECTS = Object.entries(TAGS).map(([name, description]) => ({ name, description }));

/** A strictObject refuses unknown fields: its catchall is never. */
function refusesUnknownFields(input: AnyOperation['input']): boolean {
  const { catchall } = input.def as { catchall?: { def: { type: string } } };
  return catchall?.def.type === 'never';
}

/**
 * A defaulted request field, said in its description rather than with `default`: generators
 * read `default` as "always present" (openapi-typescript's defaults make such a field required
 * in a named schema), which holds for an answer, not for what a caller sends.
 */
function withoutDefaults(properties: Record<string, Json> | undefined) {
  if (!properties) return undefined;
  return Object.fromEntries(
    Object.entries(properties).map(([name, { default: value, ...property }]) => {
      if (value === undefined) return [name, property];
      const shown = typeof value === 'string' ? value : JSON.stringify(value);
      const omitted = `Defaults to \`${shown}\` when omitted.`;
      const description = typeof property.description === 'string' ? property.description : '';
      return [name, { ...property, description: `${description} ${omitted}`.trim() }];
    }),
  );
}

/**
 * The library inlines the body schema (rendered for input: defaulted fields optional). Keep that
 * rendering as the named component, point the body at it, under every media type it takes.
 * When it drops path parameters from a refined object it rebuilds a plain z.object, losing
 * `additionalProperties: false` and the meta's `minProperties`; the input still enforces both,
 * so the body says so.
 */
function nameRequestBody(operation: Json, { rest, input }: AnyOperation, named: SchemaMap): void {
  const meta = input.meta();
  const id = meta?.id;
  const body = operation.requestBody as { content?: Record<string, Json> } | undefined;
  const media = body?.content?.['application/json'];
  if (typeof id !== 'string' || !body || !media) return;
  const rendered = media.schema as Json;
  named[id] = {
    ...rendered,
    properties: withoutDefaults(rendered.properties as Record<string, Json> | undefined),
    ...(refusesUnknownFields(input) ? { additionalProperties: false } : {}),
    ...(typeof meta?.minProperties === 'number' ? { minProperties: meta.minProperties } : {}),
  };
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
  const streamPaths: NonNullable<OpenAPIObject['paths']> = {};
  const events: AnyOperation['output'][] = [];
  for (const definition of operations.values()) {
    const binding = definition.rest;
    if (!binding) continue;
    // trpc-to-openapi documents no subscription: a stream's whole entry is written here.
    if (definition.kind === 'subscription') {
      Object.assign(streamPaths, eventStreamPath(binding));
      events.push(definition.output);
      continue;
    }
    const path = document.paths?.[binding.path] as Json | undefined;
    const operation = path?.[binding.method.toLowerCase()] as Json | undefined;
    if (!operation) throw new Error(`No generated operation for ${binding.method} ${binding.path}`);
    const positioned = definition.replicaRead === true || definition.kind === 'mutation';
    operation.responses = responsesOf(
      binding,
      operation.responses as Record<string, Json>,
      positioned,
    );
    if (definition.replicaRead === true) {
      operation.parameters = [
        ...((operation.parameters as Json[] | undefined) ?? []),
        POSITION_PARAMETER,
      ];
    }
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
  const eventTypes: SchemaMap = Object.fromEntries(
    events.flatMap((event) => Object.entries(eventSchemas(schemas, event))),
  );
  const reference = new URL('/docs', options.productionUrl).href;
  return {
    ...document,
    info: { ...document.info, contact: { name: 'API reference', url: reference } },
    // Absolute: a relative URL would resolve against wherever the document was read from.
    externalDocs: { description: 'API reference', url: reference },
    paths: { ...document.paths, ...streamPaths },
    webhooks: webhookRequests(),
    tags: TAG_OBJECTS,
    servers: [
      { url: options.productionUrl, description: 'Production' },
      ...(options.stagingUrl ? [{ url: options.stagingUrl, description: 'Staging' }] : []),
    ],
    components: {
      ...document.components,
      schemas: { ...schemas, ...namedBodies, ...eventTypes },
      headers: SHARED_HEADERS,
      examples: errorExamples(),
      securitySchemes: {
        ...document.components?.securitySchemes,
        // Only a stream takes a ticket.
        ...(events.length > 0 ? { streamTicket: STREAM_TICKET_SCHEME } : {}),
      },
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
    tags: Object.keys(TAGS),
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' },
    },
    defs: { Error: ErrorSchema },
  });
  return applyContractDetails(generated, operations, options);
}
