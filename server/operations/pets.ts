import { hash } from 'node:crypto';
import { z } from 'zod';
import { listPets as listPetRows } from '../../db/queries/pet-pages.js';
import { insertPetGrouped } from '../../db/queries/grouped-pet-inserts.js';
import { findPet, insertPet, type VersionedPetRow } from '../../db/queries/pets.js';
import {
  IdempotencyKeyHeaderSchema,
  parseIdempotencyKey,
} from '../domain/idempotency/key-header.js';
import { IDEMPOTENCY_TTL_SECONDS, performIdempotently } from '../domain/idempotency/replay.js';
import { petBody } from '../domain/lifecycle/bodies.js';
import { petNotFound } from '../domain/lifecycle/pets.js';
import { ETagHeader, IfNoneMatchHeader } from '../domain/schemas/headers.js';
import {
  GetPetInputSchema,
  ListPetsInputSchema,
  NewPetSchema,
  PetSchema,
  type ListPetsInput,
  type Pet,
} from '../domain/schemas/pet.js';
import { etagOf } from '../domain/versions/etag.js';
import { defineMutation, defineQuery } from './define.js';
import { definePagedList } from './paged-list.js';

const TTL_HOURS = IDEMPOTENCY_TTL_SECONDS / 3600;

/** One pet as an answer carries it: the body, and the ETag made from its version. */
export function petAnswer(pet: VersionedPetRow): { body: Pet; headers: { etag: string } } {
  return { body: petBody(pet), headers: { etag: etagOf(pet) } };
}

/** Ascending and without repeats: `3,1,3` and `1,3` find the same pets, with the same cursors. */
function idsOf(list: string): number[] {
  return [...new Set(list.split(',').map(Number))].sort((a, b) => a - b);
}

/** A cursor's filter is a digest when it holds more than a status (see boundFilter). */
const DIGEST_PREFIX = '#';

/**
 * The filters a cursor is bound to. A status alone is held as itself, as in every cursor issued
 * before the other filters existed, so those stay valid. Anything more is held as a digest: a
 * name of 255 characters or a hundred ids would not fit in a cursor, and the cursor only has to
 * tell whether the filters are the same.
 */
function boundFilter({ status, categoryId, name, id }: ListPetsInput): string | null {
  if (categoryId === undefined && name === undefined && id === undefined) return status ?? null;
  // One-shot, as the API key's digest: no Hash object made for a digest used once.
  const ids = id === undefined ? null : idsOf(id);
  const filters = [status ?? null, categoryId ?? null, name ?? null, ids];
  return `${DIGEST_PREFIX}${hash('sha256', JSON.stringify(filters), 'base64url').slice(0, 22)}`;
}

export const listPets = definePagedList({
  scope: 'read',
  replicaRead: true,
  input: ListPetsInputSchema,
  item: PetSchema,
  rest: {
    method: 'GET',
    path: '/pets',
    operationId: 'listPets',
    summary: 'List animals',
    description:
      'Animals in ascending id order, optionally filtered by status, ids, category and name (all filters given must hold). When more exist, the `Link` header points at the next page, with the same filters; following it until it is absent visits every matching animal exactly once. An index serves every filter, so finding stays fast as the store grows.',
    tags: ['pets'],
    stability: 'stable',
    successStatus: 200,
    successDescription: 'A page of animals.',
    errorResponses: {
      400: 'Invalid or unknown query parameter, or a cursor that was altered or issued for other filters.',
    },
  },
  cursor: {
    tag: 'pets.v1',
    bind: boundFilter,
    describe: (filter) =>
      filter === null
        ? 'no filter'
        : filter.startsWith(DIGEST_PREFIX)
          ? 'a combination of id, categoryId, name and status filters'
          : `status=${filter}`,
  },
  canonical: (query) =>
    query.id === undefined ? query : { ...query, id: idsOf(query.id).join(',') },
  /**
   * Ids never change and are never reused, and insertPet makes them visible in ascending order,
   * so resuming after the last id seen visits every live pet exactly once, also those created
   * meanwhile; a pet deleted meanwhile is simply not there.
   */
  read: (ctx, { status, categoryId, name, id }, { after, limit }) =>
    listPetRows(ctx.db, {
      status,
      categoryId,
      name,
      ids: id === undefined ? undefined : idsOf(id),
      limit,
      after: after ?? 0,
    }),
  positionOf: (pet) => pet.id,
  toItem: (pet) => pet,
});

export const createPet = defineMutation({
  scope: 'write',
  input: NewPetSchema,
  output: PetSchema,
  rest: {
    method: 'POST',
    path: '/pets',
    operationId: 'createPet',
    summary: 'Add an animal',
    description: `Send an \`Idempotency-Key\` to make retries safe: a retry with the same key and body, from the same API key, within ${TTL_HOURS} hours, returns the original response and creates nothing.`,
    tags: ['pets'],
    stability: 'stable',
    successStatus: 201,
    successDescription: 'The created animal, with its assigned id.',
    requestHeaders: z.object({
      'Idempotency-Key': IdempotencyKeyHeaderSchema.optional().meta({
        description: `1..255 printable ASCII characters, bare (\`abc\`) or as a quoted string (\`"abc"\`); both name the same key. Keys are scoped to the API key and kept ${TTL_HOURS} hours.`,
        examples: ['"8e03978e-40d5-43e8-bc93-6894a57f9324"'],
      }),
    }),
    responseHeaders: z.object({
      Location: z.url().meta({ description: 'Address of the created animal: `{base}/pets/{id}`.' }),
      ETag: ETagHeader,
      'Idempotent-Replayed': z.literal('true').optional().meta({
        description:
          'Present when this is the stored response to an earlier request with the same Idempotency-Key.',
      }),
    }),
    errorResponses: {
      400: 'Malformed JSON, missing or invalid fields, or unknown fields.',
      403: 'The API key is read-only.',
      409: 'A request with the same Idempotency-Key is still in progress; retry after it completes.',
      422: 'The Idempotency-Key was already used with a different body.',
    },
  },
  handler: async (ctx, input) => {
    const key = parseIdempotencyKey(ctx.idempotencyKey);
    const { body, headers, replayed } = key
      ? await performIdempotently(
          ctx.db,
          { apiKeyId: ctx.principal.keyId, key },
          { operation: 'createPet', canonicalInput: [input.name, input.categoryId, input.status] },
          async (tx) => petAnswer(await insertPet(tx, input)),
        )
      : { ...petAnswer(await insertPetGrouped(ctx.database, input)), replayed: false };
    if (!replayed) ctx.notifyChange();
    Object.assign(ctx.responseHeaders, headers);
    ctx.responseHeaders.location = `${ctx.baseUrl}/pets/${body.id}`;
    if (replayed) ctx.responseHeaders['idempotent-replayed'] = 'true';
    return body;
  },
});

export const getPet = defineQuery({
  scope: 'read',
  replicaRead: true,
  input: GetPetInputSchema,
  output: PetSchema,
  rest: {
    method: 'GET',
    path: '/pets/{petId}',
    operationId: 'getPet',
    summary: 'Return one animal by id',
    description:
      'Deprecated: to be removed on 5 December 2030. Use `GET /pets?id={petId}` instead (listPets with the `id` filter).',
    tags: ['pets'],
    stability: 'stable',
    // The interface document shipped it deprecated: the first release of this service.
    deprecation: {
      deprecatedAt: new Date('2026-11-21T00:00:00Z'),
      sunset: new Date('2030-12-05T00:00:00Z'),
    },
    successStatus: 200,
    successDescription: 'The animal.',
    conditionalRead: true,
    requestHeaders: z.object({ 'If-None-Match': IfNoneMatchHeader }),
    responseHeaders: z.object({ ETag: ETagHeader }),
    errorResponses: {
      400: '`petId` is not a positive integer.',
      404: 'No animal has this id (or it was deleted).',
    },
  },
  handler: async (ctx, input) => {
    const pet = await findPet(ctx.db, input.petId);
    if (!pet) throw petNotFound(input.petId);
    const { body, headers } = petAnswer(pet);
    Object.assign(ctx.responseHeaders, headers);
    return body;
  },
});
