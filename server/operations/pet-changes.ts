import { z } from 'zod';
import { transaction } from '../../db/runner.js';
import { patchPet, removePet } from '../domain/lifecycle/pets.js';
import { ETagHeader, IfMatchHeader, IfNoneMatchChangeHeader } from '../domain/schemas/headers.js';
import { DeletePetInputSchema, PetSchema, UpdatePetInputSchema } from '../domain/schemas/pet.js';
import { defineMutation } from './define.js';
import { petAnswer } from './pets.js';

const LIFE_CYCLE =
  '`available` → `pending` | `sold`, `pending` → `available` | `sold`; `sold` is final. While an order holds the animal, its status follows the order.';

export const updatePet = defineMutation({
  scope: 'write',
  input: UpdatePetInputSchema,
  output: PetSchema,
  rest: {
    method: 'PATCH',
    path: '/pets/{petId}',
    operationId: 'updatePet',
    summary: 'Change an animal',
    description: `A JSON merge patch of \`name\`, \`categoryId\` and \`status\`. Status follows the life cycle: ${LIFE_CYCLE} Setting the current status again changes nothing. A refused change (409) changes no field of the patch. Send \`If-Match\` with the ETag you read to change only that version.`,
    tags: ['pets'],
    stability: 'stable',
    successStatus: 200,
    successDescription: 'The animal as changed.',
    bodyTypes: ['application/json', 'application/merge-patch+json'],
    requestHeaders: z.object({
      'If-Match': IfMatchHeader,
      'If-None-Match': IfNoneMatchChangeHeader,
    }),
    responseHeaders: z.object({ ETag: ETagHeader }),
    errorResponses: {
      400: 'Malformed JSON, an empty patch, `null`, `id`, unknown fields or invalid values.',
      403: 'The API key is read-only.',
      404: 'No animal has this id (or it was deleted).',
      409: 'The life cycle does not allow this status change, or an open order holds the animal; the message names both states.',
      412: '`If-Match` does not name the current version, or `If-None-Match` does (or is `*`); nothing changed.',
      415: 'The body is neither application/json nor application/merge-patch+json.',
    },
  },
  handler: async (ctx, { petId, ...patch }) => {
    const pet = await transaction(ctx.db, (tx) => patchPet(tx, petId, patch, ctx));
    ctx.notifyChange();
    const { body, headers } = petAnswer(pet);
    Object.assign(ctx.responseHeaders, headers);
    return body;
  },
});

export const deletePet = defineMutation({
  scope: 'write',
  input: DeletePetInputSchema,
  output: z.void(),
  rest: {
    method: 'DELETE',
    path: '/pets/{petId}',
    operationId: 'deletePet',
    summary: 'Delete an animal',
    description:
      'The animal is gone from every listing and from `GET /pets/{petId}`; its id is never reused. Refused while an open order holds it. Send `If-Match` with the ETag you read to delete only that version.',
    tags: ['pets'],
    stability: 'stable',
    successStatus: 204,
    successDescription: 'Deleted.',
    requestHeaders: z.object({
      'If-Match': IfMatchHeader,
      'If-None-Match': IfNoneMatchChangeHeader,
    }),
    errorResponses: {
      400: '`petId` is not a positive integer, `If-Match` is malformed, or a body was sent (DELETE takes none; a JSON one too).',
      403: 'The API key is read-only.',
      404: 'No animal has this id, or it was already deleted.',
      409: 'An open order holds the animal.',
      412: '`If-Match` does not name the current version, or `If-None-Match` does (or is `*`); nothing changed.',
      413: 'A body larger than 64 KiB was sent (DELETE takes none).',
      415: 'A body that is not JSON was sent (DELETE takes none).',
    },
  },
  handler: async (ctx, { petId }) => {
    await transaction(ctx.db, (tx) => removePet(tx, petId, ctx));
    ctx.notifyChange();
  },
});
