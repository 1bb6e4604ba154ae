import { findWebhookEndpoint } from '../storage/endpoints.js';
import { deliveryPage, replayDeliveries, retryDelivery } from '../storage/recovery.js';
import {
  DeliverySchema,
  ListDeliveriesInputSchema,
  ReplayInputSchema,
  RetryDeliveryInputSchema,
  ScheduledSchema,
} from '../domain/schemas.js';
import { webhookNotFound } from '../domain/endpoints.js';
import { NotFoundError } from '../../domain/errors.js';
import { defineMutation } from '../../operations/define.js';
import { definePagedList } from '../../operations/paged-list.js';
import { BETA, NOT_FOUND } from './texts.js';

export const listWebhookDeliveries = definePagedList({
  scope: 'read',
  input: ListDeliveriesInputSchema,
  item: DeliverySchema,
  rest: {
    method: 'GET',
    path: '/webhooks/{webhookId}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: "List a webhook endpoint's deliveries",
    description: `Newest first, of one \`status\` or all, paged as \`GET /pets\` is; kept as long as their events. ${BETA}`,
    tags: ['webhooks'],
    stability: 'beta',
    successStatus: 200,
    successDescription: 'A page of deliveries, newest first.',
    errorResponses: {
      400: 'A malformed `webhookId`, an unknown `status`, an invalid query parameter or an altered cursor.',
      404: NOT_FOUND,
    },
  },
  cursor: { tag: 'webhooks.deliveries.v1' },
  read: async (ctx, { webhookId, status }, { after, limit }) => {
    const rows = await deliveryPage(ctx.database, webhookId, { status, before: after, limit });
    if (rows.length === 0 && !(await findWebhookEndpoint(ctx.database, webhookId))) {
      throw webhookNotFound(webhookId);
    }
    return rows;
  },
  positionOf: (row) => row.id,
  toItem: (row) => ({
    id: String(row.id),
    eventId: String(row.eventId),
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
    lastResponseStatus: row.lastResponseStatus,
    lastError: row.lastError,
  }),
});

export const retryWebhookDelivery = defineMutation({
  scope: 'write',
  input: RetryDeliveryInputSchema,
  output: ScheduledSchema,
  rest: {
    method: 'POST',
    path: '/webhooks/{webhookId}/deliveries/{deliveryId}/retry',
    operationId: 'retryWebhookDelivery',
    summary: 'Attempt a delivery again now',
    description: `The delivery is due now, with a new schedule, whatever its status. ${BETA}`,
    tags: ['webhooks'],
    stability: 'beta',
    successStatus: 202,
    successDescription: 'Accepted: it is due now.',
    errorResponses: {
      400: 'A malformed `webhookId` or `deliveryId`.',
      403: 'The API key is read-only.',
      404: 'No such endpoint, or no such delivery of it.',
    },
  },
  handler: async (ctx, { webhookId, deliveryId }) => {
    if (!(await retryDelivery(ctx.database, webhookId, deliveryId))) {
      throw new NotFoundError(`No delivery ${deliveryId} of webhook endpoint ${webhookId}`);
    }
    return { scheduled: 1 };
  },
});

export const replayWebhook = defineMutation({
  scope: 'write',
  input: ReplayInputSchema,
  output: ScheduledSchema,
  rest: {
    method: 'POST',
    path: '/webhooks/{webhookId}/replay',
    operationId: 'replayWebhook',
    summary: 'Send the events after an id again',
    description: `Every kept event after \`after\` of the endpoint's types is due again now, with a new schedule; the receiver dedupes by \`webhook-id\`. ${BETA}`,
    tags: ['webhooks'],
    stability: 'beta',
    successStatus: 202,
    successDescription: 'Accepted: how many deliveries are due now.',
    errorResponses: {
      400: 'A malformed `webhookId` or `after`.',
      403: 'The API key is read-only.',
      404: NOT_FOUND,
    },
  },
  handler: async (ctx, { webhookId, after }) => {
    if (!(await findWebhookEndpoint(ctx.database, webhookId))) throw webhookNotFound(webhookId);
    return { scheduled: await replayDeliveries(ctx.database, webhookId, Number(after)) };
  },
});
