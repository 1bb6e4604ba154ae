import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { insertPetGrouped } from '../../db/queries/grouped-pet-inserts.js';
import { findPet } from '../../db/queries/pets.js';
import { createPetIdempotently, IDEMPOTENCY_TTL_SECONDS } from '../idempotency/create-pet.js';
import { IDEMPOTENCY_KEY_MAX_CHARACTERS, parseIdempotencyKey } from '../idempotency/key-header.js';
import { nextPageLink, pageOfPets } from '../pagination/pet-page.js';
import {
  GetPetInputSchema,
  ListPetsInputSchema,
  NewPetSchema,
  PetPageSchema,
  PetSchema,
} from '../schemas/pet.js';
import { authedProcedure, router, scopedProcedure } from '../trpc.js';

const UNAUTHORIZED = 'Missing or invalid API key.';
const UNAVAILABLE = 'The database is unavailable; retry shortly.';
const INTERNAL = 'Unexpected server error.';
const RATE_LIMITED =
  "The API key has spent its window's request quota; retry after `Retry-After` seconds.";

export const petsRouter = router({
  list: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/pets',
        operationId: 'listPets',
        summary: 'List animals',
        description:
          'Animals in ascending id order, optionally filtered by status. When more exist, the `Link` header points at the next page; following it until it is absent visits every matching animal exactly once.',
        tags: ['pets'],
        successDescription: 'A page of animals.',
        responseHeaders: z.object({
          Link: z.string().optional().meta({
            description:
              'RFC 8288 link to the next page, `<{base}/pets?limit=N[&status=S]&cursor=C>; rel="next"`; absent on the last page.',
          }),
        }),
        errorResponses: {
          400: 'Invalid or unknown query parameter, or a cursor that was altered or issued for another `status`.',
          401: UNAUTHORIZED,
          429: RATE_LIMITED,
          500: INTERNAL,
          503: UNAVAILABLE,
        },
      },
    })
    .input(ListPetsInputSchema)
    .output(z.array(PetSchema))
    .query(async ({ ctx, input }) => {
      const page = await pageOfPets(ctx, input);
      if (page.nextCursor)
        ctx.responseHeaders.link = nextPageLink(ctx.baseUrl, input, page.nextCursor);
      return page.items;
    }),

  /** The same pages for tRPC clients (`useInfiniteQuery`), with the cursor in the body. */
  listPage: authedProcedure
    .input(ListPetsInputSchema)
    .output(PetPageSchema)
    .query(({ ctx, input }) => pageOfPets(ctx, input)),

  create: scopedProcedure('write')
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/pets',
        operationId: 'createPet',
        summary: 'Add an animal',
        description: `Send an \`Idempotency-Key\` to make retries safe: a retry with the same key and body, from the same API key, within ${IDEMPOTENCY_TTL_SECONDS / 3600} hours, returns the original response and creates nothing.`,
        tags: ['pets'],
        successDescription: 'The created animal, with its assigned id.',
        requestHeaders: z.object({
          'Idempotency-Key': z
            .string()
            .min(1)
            // Printable ASCII; the quoted form adds two quotes and may escape `"` and `\`.
            .max(2 * IDEMPOTENCY_KEY_MAX_CHARACTERS + 2)
            .regex(/^[\x20-\x7e]+$/)
            .optional()
            .meta({
              description: `1..${IDEMPOTENCY_KEY_MAX_CHARACTERS} printable ASCII characters, bare (\`abc\`) or as a quoted string (\`"abc"\`); both name the same key. Keys are scoped to the API key and kept ${IDEMPOTENCY_TTL_SECONDS / 3600} hours.`,
              examples: ['"8e03978e-40d5-43e8-bc93-6894a57f9324"'],
            }),
        }),
        responseHeaders: z.object({
          Location: z
            .url()
            .meta({ description: 'Address of the created animal: `{base}/pets/{id}`.' }),
          'Idempotent-Replayed': z.literal('true').optional().meta({
            description:
              'Present when this is the stored response to an earlier request with the same Idempotency-Key.',
          }),
        }),
        errorResponses: {
          400: 'Malformed JSON, missing or invalid fields, or unknown fields.',
          401: UNAUTHORIZED,
          403: 'The API key is read-only.',
          409: 'A request with the same Idempotency-Key is still in progress; retry after it completes.',
          413: 'The body is larger than 64 KiB.',
          415: 'The body is not application/json.',
          422: 'The Idempotency-Key was already used with a different body.',
          429: RATE_LIMITED,
          500: INTERNAL,
          503: UNAVAILABLE,
        },
      },
    })
    .input(NewPetSchema)
    .output(PetSchema)
    .mutation(async ({ ctx, input }) => {
      const key = parseIdempotencyKey(ctx.idempotencyKey);
      const { pet, replayed } = key
        ? await createPetIdempotently(ctx.db, { apiKeyId: ctx.principal.keyId, key }, input)
        : { pet: await insertPetGrouped(ctx.db, input), replayed: false };
      ctx.responseHeaders.location = `${ctx.baseUrl}/pets/${pet.id}`;
      if (replayed) ctx.responseHeaders['idempotent-replayed'] = 'true';
      return pet;
    }),

  get: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/pets/{petId}',
        operationId: 'getPet',
        summary: 'Return one animal by id',
        description:
          'Deprecated: to be removed on 5 December 2030. Use `GET /pets` with the `status` filter instead.',
        tags: ['pets'],
        deprecated: true,
        successDescription: 'The animal.',
        errorResponses: {
          400: '`petId` is not a positive integer.',
          401: UNAUTHORIZED,
          404: 'No animal has this id.',
          429: RATE_LIMITED,
          500: INTERNAL,
          503: UNAVAILABLE,
        },
      },
    })
    .input(GetPetInputSchema)
    .output(PetSchema)
    .query(async ({ ctx, input }) => {
      const pet = await findPet(ctx.db, input.petId);
      if (!pet)
        throw new TRPCError({ code: 'NOT_FOUND', message: `No pet with id ${input.petId}` });
      return pet;
    }),
});
