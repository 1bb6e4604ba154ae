import { z } from 'zod';
import { readInventory } from '../../db/queries/inventory.js';
import { IfNoneMatchHeader } from '../domain/schemas/headers.js';
import {
  GetInventoryInputSchema,
  InventorySchema,
  type Inventory,
} from '../domain/schemas/inventory.js';
import { defineQuery } from './define.js';

/**
 * Made of the counts themselves, so it changes exactly when a count does: two answers with
 * the same ETag carry the same body, which is what a strong validator promises.
 */
export function inventoryETag({ available, pending, sold }: Inventory): string {
  return `"${available}.${pending}.${sold}"`;
}

export const getInventory = defineQuery({
  scope: 'read',
  replicaRead: true,
  input: GetInventoryInputSchema,
  output: InventorySchema,
  rest: {
    method: 'GET',
    path: '/store/inventory',
    operationId: 'getInventory',
    summary: 'Count the animals by status',
    description:
      'How many animals exist in each status, read from counts the database keeps with every change: as fast at a million animals as at a thousand. Beta: its shape may still change in a minor release.',
    tags: ['store'],
    stability: 'beta',
    successStatus: 200,
    successDescription: 'The number of animals in each status.',
    conditionalRead: true,
    requestHeaders: z.object({
      'If-None-Match': IfNoneMatchHeader.meta({
        description: 'Answer 304 without a body when the counts still have this ETag.',
        examples: ['"120.4.37"'],
      }),
    }),
    responseHeaders: z.object({
      ETag: z.string().meta({
        description:
          'Strong validator of these counts; it changes whenever a count does. Send it in `If-None-Match` to read only when they changed.',
        examples: ['"120.4.37"'],
      }),
    }),
    errorResponses: { 400: 'A query parameter was sent; this operation takes none.' },
  },
  handler: async (ctx) => {
    const inventory = await readInventory(ctx.db);
    ctx.responseHeaders.etag = inventoryETag(inventory);
    return inventory;
  },
});
