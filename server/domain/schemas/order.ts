import { z } from 'zod';
import { orderStatus } from '../../../db/schema.js';
import { cursorParam, limitParam, positiveInt64, timestamp } from './common.js';

export const OrderStatusSchema = z.enum(orderStatus.enumValues).meta({
  id: 'OrderStatus',
  description:
    'Where an order stands: `placed` and `approved` hold the animal; `delivered` sold it; `cancelled` let it go.',
});

export const OrderSchema = z
  .object({
    id: positiveInt64('Unique identifier assigned by the service when the order is placed.'),
    petId: positiveInt64('Id of the animal ordered.'),
    status: OrderStatusSchema,
    placedAt: timestamp('When the order was placed (RFC 3339, UTC).'),
    updatedAt: timestamp('When the order last changed (RFC 3339, UTC).'),
  })
  .meta({ id: 'Order', description: 'An order for one animal of the store (beta).' });

export const NewOrderSchema = z
  .strictObject({ petId: positiveInt64('Id of the animal to order; it must be available.') })
  .meta({ id: 'NewOrder', description: 'An order to place. Unknown fields are rejected.' });

const ListOrdersQuerySchema = z.strictObject({
  limit: limitParam('orders'),
  status: OrderStatusSchema.optional().meta({ description: 'Only orders with this status.' }),
  petId: positiveInt64('Only orders for this animal.').optional(),
  cursor: cursorParam('`status` and `petId`'),
});

export const ListOrdersInputSchema = ListOrdersQuerySchema.prefault({});

export const GetOrderInputSchema = z.strictObject({
  orderId: positiveInt64('Id of the order.'),
});

export const UpdateOrderInputSchema = z
  .strictObject({
    orderId: positiveInt64('Id of the order to change.'),
    status: OrderStatusSchema,
  })
  .meta({
    id: 'OrderPatch',
    description:
      'The status to move the order to: `placed` → `approved` | `cancelled`, `approved` → `delivered` | `cancelled`.',
  });

export type Order = z.infer<typeof OrderSchema>;
export type ListOrdersInput = z.infer<typeof ListOrdersInputSchema>;
