import { petEverExisted, petHistory } from '../../db/queries/pet-history.js';
import { toFeedEvent } from '../domain/events/feed.js';
import { petNotFound } from '../domain/lifecycle/pets.js';
import { EventSchema, PetHistoryInputSchema } from '../domain/schemas/event.js';
import { definePagedList } from './paged-list.js';

export const listPetHistory = definePagedList({
  scope: 'read',
  replicaRead: true,
  input: PetHistoryInputSchema,
  item: EventSchema,
  rest: {
    method: 'GET',
    path: '/pets/{petId}/history',
    operationId: 'listPetHistory',
    summary: "List an animal's changes",
    description:
      "The animal's kept events (`pet.created`, `pet.updated`, `pet.deleted`), newest first, paged as `GET /pets` is: follow the `Link` header's `next` until it is absent. A deleted animal's history is listed while its events are kept. Experimental: its shape may change in any release.",
    tags: ['pets'],
    stability: 'experimental',
    successStatus: 200,
    successDescription: "A page of the animal's events, newest first.",
    errorResponses: {
      400: '`petId` is not a positive integer, an invalid or unknown query parameter, or a cursor that was altered or issued for another animal.',
      404: 'No animal ever had this id.',
    },
  },
  cursor: { tag: 'pets.history.v1' },
  read: async (ctx, { petId }, { after, limit }) => {
    const rows = await petHistory(ctx.db, petId, { before: after, limit });
    // A pet has at least its pet.created event until retention removes it: only then is it
    // worth asking whether the pet ever existed.
    if (rows.length === 0 && !(await petEverExisted(ctx.db, petId))) throw petNotFound(petId);
    return rows;
  },
  positionOf: (event) => event.id,
  // The output schema checks the jsonb data as the stream's does.
  toItem: (event) => toFeedEvent(event).body,
});
