import { z } from 'zod';
import { webhookDeliveryStatus } from '../storage/schema.js';
import { cursorParam, limitParam, positiveInt64, timestamp } from '../../domain/schemas/common.js';
import { EventIdSchema, EventTypeSchema } from '../../domain/schemas/event.js';

/** The longest URL an endpoint may have. */
export const WEBHOOK_URL_MAX = 2048;

const WebhookIdSchema = z
  .string()
  .regex(/^wh_[A-Za-z0-9_-]{1,64}$/, 'must be a webhook id: wh_…')
  .meta({ description: 'Id of a webhook endpoint, `wh_…`.' });

const UrlSchema = z.string().min(1).max(WEBHOOK_URL_MAX).meta({
  format: 'uri',
  description:
    'Absolute `https:` URL without credentials, at most 2,048 characters, whose host is and resolves to public addresses only.',
});
const TypesSchema = z
  .array(EventTypeSchema)
  .min(1)
  .meta({ description: 'The event types sent to it; absent: every type.' });
const DescriptionSchema = z.string().max(500).meta({ description: 'Free text, for people.' });

export const WebhookSchema = z
  .object({
    id: WebhookIdSchema,
    url: z.string().meta({ format: 'uri' }),
    types: TypesSchema.nullable().meta({
      description: 'The event types sent to it; null: every type.',
    }),
    description: z.string().nullable(),
    enabled: z.boolean().meta({
      description: 'False after a 410, after 5 days of failures, or when set so: nothing is sent.',
    }),
    createdAt: timestamp('When the endpoint was registered.'),
  })
  .meta({ id: 'Webhook', description: 'A webhook endpoint (beta).' });

export const WebhookWithSecretSchema = WebhookSchema.extend({
  secret: z.string().meta({
    description:
      'The signing secret, `whsec_` + base64; shown only here. Verify with a Standard Webhooks library.',
  }),
}).meta({ id: 'WebhookWithSecret', description: 'A webhook endpoint and its new secret.' });

export const CreateWebhookInputSchema = z
  .strictObject({
    url: UrlSchema,
    types: TypesSchema.optional(),
    description: DescriptionSchema.optional(),
  })
  .meta({ id: 'NewWebhook', description: 'An endpoint to register. Unknown fields are rejected.' });

const WebhookIdParam = z.strictObject({ webhookId: WebhookIdSchema });
export const WebhookIdInputSchema = WebhookIdParam;

export const UpdateWebhookInputSchema = WebhookIdParam.extend({
  url: UrlSchema.optional(),
  types: TypesSchema.nullable().optional(),
  description: DescriptionSchema.nullable().optional(),
  enabled: z.boolean().optional(),
})
  .refine(
    (patch) =>
      patch.url !== undefined ||
      patch.types !== undefined ||
      patch.description !== undefined ||
      patch.enabled !== undefined,
    { message: 'A patch must change at least one of url, types, description, enabled' },
  )
  .meta({
    id: 'WebhookPatch',
    minProperties: 1,
    description: 'The fields of an endpoint to change: at least one. Unknown fields are rejected.',
  });

/** Every field optional, so the input is too: tRPC's `webhooks.list` may be called bare. */
export const ListWebhooksInputSchema = z
  .strictObject({
    limit: limitParam('webhook endpoints'),
    cursor: cursorParam('filters'),
  })
  .prefault({});

export const DeliveryStatusSchema = z.enum(webhookDeliveryStatus.enumValues).meta({
  id: 'WebhookDeliveryStatus',
  description: '`pending` until it succeeds or its schedule runs out (`failed`).',
});

export const ListDeliveriesInputSchema = WebhookIdParam.extend({
  status: DeliveryStatusSchema.optional(),
  limit: limitParam('deliveries'),
  cursor: cursorParam('endpoint and status'),
});

export const DeliverySchema = z
  .object({
    id: z.string().meta({ description: 'Id of the delivery, a decimal string.' }),
    eventId: z.string().meta({ description: 'Id of the event delivered.' }),
    type: EventTypeSchema,
    status: DeliveryStatusSchema,
    attempts: z.int().min(0),
    lastAttemptAt: timestamp('When it was last attempted.').nullable(),
    nextAttemptAt: timestamp('When it is due (pending only).').nullable(),
    lastResponseStatus: z.int().nullable(),
    lastError: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery', description: 'One event sent to one endpoint.' });

export const RetryDeliveryInputSchema = WebhookIdParam.extend({
  deliveryId: positiveInt64('Id of the delivery.'),
});

export const ReplayInputSchema = WebhookIdParam.extend({
  after: EventIdSchema.meta({ description: 'Every kept event after this id is sent again.' }),
}).meta({ id: 'WebhookReplay', description: 'Where a replay starts.' });

export const ScheduledSchema = z
  .object({ scheduled: z.int().min(0).meta({ description: 'Deliveries made due now.' }) })
  .meta({ id: 'WebhookScheduled', description: 'Accepted: the deliveries are due now.' });
