import { z } from 'zod';
import { findOrder, listOrders as listOrderRows } from '../../db/queries/orders.js';
import { transaction, type Runner } from '../../db/runner.js';
import {
  IdempotencyKeyHeaderSchema,
  parseIdempotencyKey,
} from '../domain/idempotency/key-header.js';
import { IDEMPOTENCY_TTL_SECONDS, performIdempotently } from '../domain/idempotency/replay.js';
import { orderBody } from '../domain/lifecycle/bodies.js';
import { moveOrder, orderNotFound, orderPet } from '../domain/lifecycle/orders.js';
import {
  GetOrderInputSchema,
  ListOrdersInputSchema,
  NewOrderSchema,
  OrderSchema,
  UpdateOrderInputSchema,
} from '../domain/schemas/order.js';
import { defineMutation, defineQuery } from './define.js';
import { definePagedList } from './paged-list.js';

const BETA = 'Beta: the shape of orders may still change in a minor release.';

export const placeOrder = defineMutation({
  scope: 'write',
  input: NewOrderSchema,
  output: OrderSchema,
  rest: {
    method: 'POST',
    path: '/store/orders',
    operationId: 'placeOrder',
    summary: 'Order an animal',
    description: `Reserves an available animal: it becomes \`pending\` in the same transaction. Of many orders for one animal, exactly one succeeds. \`Idempotency-Key\` works as on createPet (${IDEMPOTENCY_TTL_SECONDS / 3600} hours). ${BETA}`,
    tags: ['store'],
    stability: 'beta',
    successStatus: 201,
    successDescription: 'The placed order.',
    requestHeaders: z.object({ 'Idempotency-Key': IdempotencyKeyHeaderSchema.optional() }),
    responseHeaders: z.object({
      Location: z.url().meta({ description: 'Address of the order: `{base}/store/orders/{id}`.' }),
      'Idempotent-Replayed': z.literal('true').optional(),
    }),
    errorResponses: {
      400: 'Malformed JSON, a missing or invalid `petId`, or unknown fields.',
      403: 'The API key is read-only.',
      409: 'The animal is not available (pending or sold), or the Idempotency-Key is in use by a request in progress.',
      422: 'No animal has this id, or the Idempotency-Key was already used with a different body.',
    },
  },
  handler: async (ctx, { petId }) => {
    const key = parseIdempotencyKey(ctx.idempotencyKey);
    const place = async (tx: Runner) => ({
      body: orderBody(await orderPet(tx, petId)),
      headers: {},
    });
    const { body, replayed } = key
      ? await performIdempotently(
          ctx.db,
          { apiKeyId: ctx.principal.keyId, key },
          { operation: 'placeOrder', canonicalInput: [petId] },
          place,
        )
      : { ...(await transaction(ctx.db, place)), replayed: false };
    if (!replayed) ctx.notifyChange();
    ctx.responseHeaders.location = `${ctx.baseUrl}/store/orders/${body.id}`;
    if (replayed) ctx.responseHeaders['idempotent-replayed'] = 'true';
    return body;
  },
});

export const listOrders = definePagedList({
  scope: 'read',
  replicaRead: true,
  input: ListOrdersInputSchema,
  item: OrderSchema,
  rest: {
    method: 'GET',
    path: '/store/orders',
    operationId: 'listOrders',
    summary: 'List orders',
    description: `Orders in ascending id order, optionally filtered by status and animal, paged exactly as \`GET /pets\` is: follow the \`Link\` header's \`next\` until it is absent. ${BETA}`,
    tags: ['store'],
    stability: 'beta',
    successStatus: 200,
    successDescription: 'A page of orders.',
    errorResponses: {
      400: 'Invalid or unknown query parameter, or a cursor that was altered or issued for other filters.',
    },
  },
  cursor: { tag: 'orders.v1' },
  // insertOrder makes order ids visible in ascending order, as pets' are.
  read: (ctx, { status, petId }, { after, limit }) =>
    listOrderRows(ctx.db, { limit, after: after ?? 0, status, petId }),
  positionOf: (order) => order.id,
  toItem: orderBody,
});

export const getOrder = defineQuery({
  scope: 'read',
  replicaRead: true,
  input: GetOrderInputSchema,
  output: OrderSchema,
  rest: {
    method: 'GET',
    path: '/store/orders/{orderId}',
    operationId: 'getOrder',
    summary: 'Return one order',
    description: BETA,
    tags: ['store'],
    stability: 'beta',
    successStatus: 200,
    successDescription: 'The order.',
    errorResponses: {
      400: '`orderId` is not a positive integer.',
      404: 'No order has this id.',
    },
  },
  handler: async (ctx, { orderId }) => {
    const order = await findOrder(ctx.db, orderId);
    if (!order) throw orderNotFound(orderId);
    return orderBody(order);
  },
});

export const updateOrder = defineMutation({
  scope: 'write',
  input: UpdateOrderInputSchema,
  output: OrderSchema,
  rest: {
    method: 'PATCH',
    path: '/store/orders/{orderId}',
    operationId: 'updateOrder',
    summary: 'Move an order along',
    description: `\`placed\` → \`approved\` | \`cancelled\`; \`approved\` → \`delivered\` | \`cancelled\`; \`delivered\` and \`cancelled\` are final. Delivering sells the animal and cancelling makes it available again, in the same transaction. Setting the current status again changes nothing. ${BETA}`,
    tags: ['store'],
    stability: 'beta',
    successStatus: 200,
    successDescription: 'The order as changed.',
    bodyTypes: ['application/json', 'application/merge-patch+json'],
    errorResponses: {
      400: 'Malformed JSON, a missing or invalid `status`, or unknown fields.',
      403: 'The API key is read-only.',
      404: 'No order has this id.',
      409: 'The order cannot go from its status to this one; the message names both.',
      415: 'The body is neither application/json nor application/merge-patch+json.',
    },
  },
  handler: async (ctx, { orderId, status }) => {
    const order = await transaction(ctx.db, (tx) => moveOrder(tx, orderId, status));
    ctx.notifyChange();
    return orderBody(order);
  },
});
