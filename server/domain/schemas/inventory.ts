import { z } from 'zod';

const count = (status: string) =>
  z
    .int()
    .min(0)
    .meta({ format: 'int64', description: `Animals that exist with status \`${status}\`.` });

export const InventorySchema = z
  .object({
    available: count('available'),
    pending: count('pending'),
    sold: count('sold'),
  })
  .meta({
    id: 'Inventory',
    description: 'How many animals exist in each status; every status is present.',
  });

/** No parameters; a tRPC caller may send no input at all: `store.inventory.query()`. */
export const GetInventoryInputSchema = z.strictObject({}).prefault({});

export type Inventory = z.infer<typeof InventorySchema>;
