import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CLIENT_TYPES_PATH,
  OPENAPI_JSON_PATH,
  renderOpenApiArtifacts,
} from '../../scripts/openapi-artifacts.js';
import { operations as registry } from '../../server/operations/registry.js';
import { OPERATION_TABLE_PAGES, renderOperationTables } from '../../scripts/operation-tables.js';
import { useTestServer } from '../helpers/server.js';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
   @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument
   -- these tests walk the served JSON document, whose shape is what they assert */
type Json = Record<string, any>;

const server = useTestServer();
let served: Json;

beforeAll(() => {
  served = server.conformance.document;
});

const operations = () =>
  Object.entries(served.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, operation]) => ({
      path,
      method,
      operation: operation as Json,
    })),
  );

/** What the registry offers over REST: each entry with a binding is one documented operation. */
const restEntries = [...registry.values()].flatMap((entry) => (entry.rest ? [entry] : []));

/** The schemas named (by `meta({ id })`) in a REST operation's input or output, and Error. */
function namedSchemas(): string[] {
  const names = new Set(['Error']);
  for (const { input, output } of restEntries) {
    for (const [schema, io] of [
      [input, 'input'],
      [output, 'output'],
    ] as const) {
      const rendered = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
      for (const name of Object.keys(rendered.$defs ?? {})) names.add(name);
    }
  }
  return [...names].sort();
}

describe('the committed interface', () => {
  it('openapi.json and the generated client types are what the router generates (run `npm run openapi`)', async () => {
    const { json, types } = await renderOpenApiArtifacts();
    expect(await readFile(OPENAPI_JSON_PATH, 'utf8')).toBe(json);
    expect(await readFile(CLIENT_TYPES_PATH, 'utf8')).toBe(types);
  });

  it.each(OPERATION_TABLE_PAGES)(
    '%s lists the operations of the registry (run `npm run openapi`)',
    async (page) => {
      expect(await readFile(page, 'utf8')).toBe(await renderOperationTables(page));
    },
  );
});

describe('GET /v1/openapi.json', () => {
  it('is OpenAPI 3.1, version 1.0.0, with the configured production and staging servers', () => {
    expect(served.openapi).toBe('3.1.0');
    expect(served.info.version).toBe('1.0.0');
    expect(served.servers).toEqual([
      { url: 'https://api.petstore.test/v1', description: 'Production' },
      { url: 'https://staging.petstore.test/v1', description: 'Staging' },
    ]);
  });

  it('names every operation of the registry exactly, with its stability in x-stability and its description', () => {
    const documented = operations().map(
      ({ path, method, operation }) =>
        `${method} ${path} ${operation.operationId} ${operation['x-stability']}`,
    );
    const registered = restEntries.map(
      ({ rest }) =>
        `${rest?.method.toLowerCase()} ${rest?.path} ${rest?.operationId} ${rest?.stability}`,
    );
    expect(documented.sort()).toEqual(registered.sort());
    for (const { operation } of operations()) {
      expect(operation.description).toContain(`Stability: ${operation['x-stability']}.`);
    }
  });

  it('requires bearer authentication on every operation; the event stream also takes a ticket', () => {
    expect(served.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(served.components.securitySchemes.streamTicket).toMatchObject({
      type: 'apiKey',
      in: 'query',
      name: 'ticket',
    });
    const streams = new Set(
      restEntries.flatMap((entry) =>
        entry.kind === 'subscription' ? [entry.rest?.operationId] : [],
      ),
    );
    expect(streams.size).toBeGreaterThan(0);
    for (const { operation } of operations()) {
      expect(operation.security).toEqual(
        streams.has(operation.operationId)
          ? [{ bearerAuth: [] }, { streamTicket: [] }]
          : [{ bearerAuth: [] }],
      );
    }
  });

  it('keeps the named schemas as components, used by $ref, with int64 formats', () => {
    const { schemas } = served.components;
    expect(Object.keys(schemas).sort()).toEqual(namedSchemas());
    // Every body refuses unknown fields, so its schema says so too.
    const bodies = operations().flatMap(({ operation }) =>
      Object.values((operation.requestBody?.content ?? {}) as Json).map(
        (media: Json) => media.schema.$ref as string,
      ),
    );
    expect(bodies.length).toBeGreaterThan(0);
    for (const ref of bodies) {
      const name = ref.slice('#/components/schemas/'.length);
      expect(schemas[name].additionalProperties, name).toBe(false);
    }
    expect(schemas.Order.properties.petId).toMatchObject({ type: 'integer', format: 'int64' });
    for (const status of ['available', 'pending', 'sold']) {
      expect(schemas.Inventory.properties[status]).toMatchObject({
        type: 'integer',
        format: 'int64',
      });
    }
    expect(schemas.Inventory.required).toEqual(['available', 'pending', 'sold']);
    expect(schemas.PetPatch.properties).not.toHaveProperty('petId');
    const patch = served.paths['/pets/{petId}'].patch;
    expect(Object.keys(patch.requestBody.content)).toEqual([
      'application/json',
      'application/merge-patch+json',
    ]);
    expect(schemas.Pet.properties.id).toMatchObject({ type: 'integer', format: 'int64' });
    expect(schemas.Pet.properties.categoryId).toMatchObject({ type: 'integer', format: 'int64' });
    expect(schemas.NewPet.properties.categoryId).toMatchObject({
      type: 'integer',
      format: 'int64',
    });
    expect(schemas.Error.required).toEqual(['code', 'message', 'status']);
    const create = served.paths['/pets'].post;
    expect(create.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/NewPet',
    });
    const getPet = served.paths['/pets/{petId}'].get;
    const petId = (getPet.parameters as Json[]).find((parameter) => parameter.name === 'petId');
    expect(petId?.schema).toMatchObject({ type: 'integer', format: 'int64' });
  });

  it('documents the real statuses, each error with the Error schema', () => {
    const statuses = Object.fromEntries(
      operations().map(({ operation }) => [
        operation.operationId,
        Object.keys(operation.responses),
      ]),
    );
    expect(statuses.listPets).toEqual(expect.arrayContaining(['200', '400', '401']));
    expect(statuses.createPet).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '413', '415']),
    );
    expect(statuses.createPet).not.toContain('200');
    expect(statuses.getPet).toEqual(expect.arrayContaining(['200', '304', '400', '401', '404']));
    expect(statuses.updatePet).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '409', '412', '415']),
    );
    expect(statuses.deletePet).toEqual(
      expect.arrayContaining(['204', '401', '403', '404', '409', '412']),
    );
    expect(statuses.placeOrder).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '409', '413', '415', '422']),
    );
    expect(statuses.listOrders).toEqual(expect.arrayContaining(['200', '400', '401']));
    expect(statuses.getOrder).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
    expect(statuses.getInventory).toEqual(expect.arrayContaining(['200', '304', '400', '401']));
    expect(statuses.streamEvents).toEqual(
      expect.arrayContaining(['200', '400', '401', '410', '429']),
    );
    expect(statuses.createStreamTicket).toEqual(expect.arrayContaining(['201', '400', '401']));
    expect(served.paths['/events/tickets'].post).not.toHaveProperty('requestBody');
    const stream = served.paths['/events'].get.responses['200'].content['text/event-stream'];
    expect(stream.schema.contentSchema).toEqual({ $ref: '#/components/schemas/Event' });
    expect(statuses.updateOrder).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '409', '415']),
    );
    for (const statusList of Object.values(statuses)) {
      expect(statusList).toEqual(expect.arrayContaining(['429', '500', '503']));
    }
    expect(served.paths['/pets/{petId}'].delete.responses['204']).not.toHaveProperty('content');
    expect(served.paths['/pets/{petId}'].get.responses['304']).not.toHaveProperty('content');
    for (const [path, method, status] of [
      ['/pets', 'post', '201'],
      ['/pets/{petId}', 'get', '200'],
      ['/pets/{petId}', 'get', '304'],
      ['/pets/{petId}', 'patch', '200'],
      ['/store/inventory', 'get', '200'],
      ['/store/inventory', 'get', '304'],
    ] as const) {
      expect(served.paths[path][method].responses[status].headers.ETag).toBeDefined();
    }
    for (const { operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (Number(status) >= 400) {
          expect(response.content['application/json'].schema).toEqual({
            $ref: '#/components/schemas/Error',
          });
        }
      }
    }
  });

  it('marks getPet deprecated with its Deprecation, Sunset and Link headers', () => {
    const getPet = served.paths['/pets/{petId}'].get;
    expect(getPet.deprecated).toBe(true);
    // The deprecation Link points at /docs, which shows this description: it names the replacement.
    expect(getPet.description).toContain('`GET /pets?id={petId}`');
    for (const response of Object.values(getPet.responses as Json)) {
      expect(Object.keys(response.headers)).toEqual(
        expect.arrayContaining(['Deprecation', 'Sunset', 'Link']),
      );
    }
    expect(served.paths['/pets'].post.responses['201'].headers.Location.required).toBe(true);
  });

  it('needs no API key', async () => {
    const response = await fetch(`${server.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
  });
});
