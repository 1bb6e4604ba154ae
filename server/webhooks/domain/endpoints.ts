import { randomBytes } from 'node:crypto';
import type { WebhookEndpointFields } from '../storage/endpoints.js';
import { NotFoundError } from '../../domain/errors.js';

/** After a rotation, the previous secret signs too for this long. */
export const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;

/** `whsec_` and 24 random bytes in base64, as Standard Webhooks libraries read it. */
export const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

export const newWebhookId = (): string => `wh_${randomBytes(12).toString('base64url')}`;

export const webhookNotFound = (id: string): NotFoundError =>
  new NotFoundError(`No webhook endpoint with id ${id}`);

/** An endpoint as the API shows it: never its secrets. */
export function toWebhook(row: WebhookEndpointFields) {
  return {
    id: row.id,
    url: row.url,
    types: row.types,
    description: row.description,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
  };
}
