import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../client/generated/openapi.js';
import { StreamEventsInputSchema } from '../../server/domain/schemas/event.js';
import { ListPetsInputSchema } from '../../server/domain/schemas/pet.js';
import { ENTITY_TAGS_PATTERN } from '../../server/domain/versions/etag.js';
import { newPet } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
   @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument
   -- these tests walk the served JSON document, whose shape is what they assert */
type Json = Record<string, any>;

/**
 * The document is as strict as the service: what a tool generates from it is accepted, and
 * what the service refuses the document refuses too (Redocly and Spectral lint it in
 * `npm run lint`).
 */
const server = useTestServer();
let served: Json;
let ajv: Ajv2020;

beforeAll(() => {
  served = server.conformance.document;
  ajv = new Ajv2020({ strict: false });
  ajv.addSchema(served, 'openapi.json');
});

const valid = (ref: string, value: unknown) => ajv.validate({ $ref: `openapi.json#${ref}` }, value);

const parameter = (path: string, method: string, name: string): Json => {
  const found = (served.paths[path][method].parameters as Json[]).find((p) => p.name === name);
  if (!found) throw new Error(`${method} ${path} documents no ${name}`);
  return found;
};

/** The operations' parameters and error responses, flattened. */
const operations = () =>
  Object.entries(served.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, operation]) => ({ path, method, operation })),
  );

describe('PetPatch', () => {
  it('needs at least one field, as the service does', async () => {
    expect(served.components.schemas.PetPatch.minProperties).toBe(1);
    expect(valid('/components/schemas/PetPatch', {})).toBe(false);
    expect(valid('/components/schemas/PetPatch', { name: 'Rex' })).toBe(true);
    const pet = await server.api<{ id: number }>('POST', '/v1/pets', { body: newPet() });
    expect((await server.api('PATCH', `/v1/pets/${pet.body.id}`, { body: {} })).status).toBe(400);
  });
});

describe('If-Match and If-None-Match', () => {
  it('carry the grammar the service reads, as a pattern, wherever they are documented', () => {
    const fields = operations().flatMap(({ operation }) =>
      ((operation.parameters ?? []) as Json[]).filter((p) => /^If-(None-)?Match$/.test(p.name)),
    );
    expect(fields.length).toBeGreaterThanOrEqual(5);
    for (const field of fields) expect(field.schema.pattern).toBe(ENTITY_TAGS_PATTERN.source);
  });

  it.each([
    ['W/*', 400],
    ['"1", *', 400],
    ['"1" "2"', 400],
    ['"0.0", W/"1.1"', 200],
  ])('%j: the pattern and the service agree (%i)', async (field, status) => {
    expect(ENTITY_TAGS_PATTERN.test(field)).toBe(status !== 400);
    const pet = await server.api<{ id: number }>('POST', '/v1/pets', { body: newPet() });
    const response = await server.api('PATCH', `/v1/pets/${pet.body.id}`, {
      body: { categoryId: 2 },
      headers: { 'if-none-match': field },
    });
    expect(response.status).toBe(status);
  });
});

describe('the id filter of listPets', () => {
  it('is bounded by its pattern exactly as the service bounds it: 1 to 100 ids of 1..2^53-1', () => {
    const pattern = new RegExp(parameter('/pets', 'get', 'id').schema.pattern as string, 'u');
    const id = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 54n }).map(String),
      fc.constantFrom('9007199254740991', '9007199254740992', '0', '007', '', ' 1', '1.0', '-1'),
    );
    fc.assert(
      fc.property(fc.array(id, { minLength: 1, maxLength: 102 }), (ids) => {
        const list = ids.join(',');
        const accepted = ListPetsInputSchema.safeParse({ id: list }).success;
        expect(pattern.test(list)).toBe(accepted);
      }),
      { numRuns: 500 },
    );
  });

  it('answers 400 to 101 ids, which the pattern refuses too', async () => {
    const list = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
    expect(new RegExp(parameter('/pets', 'get', 'id').schema.pattern as string).test(list)).toBe(
      false,
    );
    expect((await server.api('GET', `/v1/pets?id=${list}`)).status).toBe(400);
  });
});

describe('the types filter of the event stream', () => {
  it('is a list of the event types by its pattern, as the stream reads it', () => {
    const pattern = new RegExp(parameter('/events', 'get', 'types').schema.pattern as string, 'u');
    const type = fc.constantFrom(
      ...(served.components.schemas.EventType.enum as string[]),
      'pet.*',
      'PET.CREATED',
      'pet',
      '',
      ' pet.created',
    );
    fc.assert(
      fc.property(fc.array(type, { minLength: 1, maxLength: 6 }), (types) => {
        const value = types.join(',');
        const accepted = StreamEventsInputSchema.safeParse({ types: value.split(',') }).success;
        expect(pattern.test(value)).toBe(accepted);
      }),
    );
  });
});

describe('request bodies under openapi-typescript defaults', () => {
  it('leave a defaulted field optional: it is described, not given as `default`', () => {
    const status = served.components.schemas.NewPet.properties.status as Json;
    expect(status.default).toBeUndefined();
    expect(status.description).toContain('Defaults to `available`');
    expect(served.components.schemas.NewPet.required).toEqual(['name', 'categoryId']);
    // client/generated/openapi.ts is generated with the tool's defaults: this must type-check.
    const body: components['schemas']['NewPet'] = { name: 'Rex', categoryId: 3 };
    expect(valid('/components/schemas/NewPet', body)).toBe(true);
  });
});

describe('error examples', () => {
  const CODES: Record<string, string> = {
    '400': 'BAD_REQUEST',
    '401': 'UNAUTHORIZED',
    '403': 'FORBIDDEN',
    '404': 'NOT_FOUND',
    '408': 'REQUEST_TIMEOUT',
    '409': 'CONFLICT',
    '410': 'GONE',
    '412': 'PRECONDITION_FAILED',
    '413': 'PAYLOAD_TOO_LARGE',
    '415': 'UNSUPPORTED_MEDIA_TYPE',
    '422': 'UNPROCESSABLE_CONTENT',
    '429': 'TOO_MANY_REQUESTS',
    '500': 'INTERNAL_SERVER_ERROR',
    '503': 'SERVICE_UNAVAILABLE',
  };

  it('show, on every error response, one Error of that status with its own code', () => {
    let checked = 0;
    for (const { operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (Number(status) < 400) continue;
        const examples = Object.values(response.content['application/json'].examples as Json);
        expect(examples).toHaveLength(1);
        const name = (examples[0].$ref as string).split('/').at(-1) ?? '';
        const { value } = served.components.examples[name];
        expect(value).toMatchObject({ code: CODES[status], status: Number(status) });
        expect(valid('/components/schemas/Error', value)).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});

describe('externalDocs', () => {
  it('is an absolute URL: the reference page of the configured production origin', () => {
    expect(served.externalDocs.url).toBe('https://api.petstore.test/docs');
    expect(served.info.contact.url).toBe('https://api.petstore.test/docs');
  });
});
