import { z } from 'zod';
import {
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
  webhookEndpointPage,
} from '../storage/endpoints.js';
import {
  CreateWebhookInputSchema,
  ListWebhooksInputSchema,
  UpdateWebhookInputSchema,
  WebhookIdInputSchema,
  WebhookSchema,
  WebhookWithSecretSchema,
} from '../domain/schemas.js';
import { checkEndpointUrl } from '../domain/endpoint-url.js';
import {
  newSecret,
  newWebhookId,
  PREVIOUS_SECRET_MS,
  toWebhook,
  webhookNotFound,
} from '../domain/endpoints.js';
import {
  IdempotencyKeyHeaderSchema,
  parseIdempotencyKey,
} from '../../domain/idempotency/key-header.js';
import { performIdempotently } from '../../domain/idempotency/replay.js';
import { defineMutation, defineQuery } from '../../operations/define.js';
import { definePagedList } from '../../operations/paged-list.js';
import { BETA, NOT_FOUND } from './texts.js';

const URL_REFUSED =
  'Invalid fields, or a `url` that is not `https:`, holds credentials, is longer than 2,048 characters or whose host is or resolves to a loopback, private, link-local, unique-local, multicast or unspecified address.';

export const createWebhook = defineMutation({
  scope: 'write',
  input: CreateWebhookInputSchema,
  output: WebhookWithSecretSchema,
  rest: {
    method: 'POST',
    path: '/webhooks',
    operationId: 'createWebhook',
    summary: 'Register a webhook endpoint',
    description: `Every change from now on of the \`types\` given (every type when absent) is sent to \`url\`, signed by Standard Webhooks 1.0 with the \`secret\` returned here and only here. \`Idempotency-Key\` works as on createPet: a retry returns the same endpoint and its current secret, and registers nothing. ${BETA}`,
    tags: ['webhooks'],
    stability: 'beta',
    successStatus: 201,
    successDescription: 'The endpoint, with its signing secret.',
    requestHeaders: z.object({ 'Idempotency-Key': IdempotencyKeyHeaderSchema.optional() }),
    responseHeaders: z.object({
      Location: z.url().meta({ description: 'Address of the endpoint: `{base}/webhooks/{id}`.' }),
      'Idempotent-Replayed': z.literal('true').optional(),
    }),
    errorResponses: {
      400: URL_REFUSED,
      403: 'The API key is read-only.',
      404: 'The Idempotency-Key names an endpoint that was deleted since.',
      409: 'A request with the same Idempotency-Key is still in progress; retry after it completes.',
      422: 'The Idempotency-Key was already used with a different body.',
    },
  },
  handler: async (ctx, { url, types, description }) => {
    const endpoint = {
      id: newWebhookId(),
      url: await checkEndpointUrl(url, ctx.settings.webhooks.allowPrivate),
      types: types ?? null,
      description: description ?? null,
      secret: newSecret(),
    };
    const key = parseIdempotencyKey(ctx.idempotencyKey);
    // The recorded answer holds no secret: a replay reads the endpoint's own, current one.
    const { body, replayed } = key
      ? await performIdempotently(
          ctx.db,
          { apiKeyId: ctx.principal.keyId, key },
          {
            operation: 'createWebhook',
            canonicalInput: [url, endpoint.types, endpoint.description],
          },
          async (tx) => ({
            body: toWebhook(await insertWebhookEndpoint(tx, endpoint)),
            headers: {},
          }),
        )
      : { body: toWebhook(await insertWebhookEndpoint(ctx.database, endpoint)), replayed: false };
    const secret = replayed
      ? (await findWebhookEndpoint(ctx.database, body.id))?.secret
      : endpoint.secret;
    if (secret === undefined) throw webhookNotFound(body.id);
    // Wakes this process's delivery worker, which sleeps while there is no endpoint.
    if (!replayed) ctx.notifyChange();
    ctx.responseHeaders.location = `${ctx.baseUrl}/webhooks/${body.id}`;
    if (replayed) ctx.responseHeaders['idempotent-replayed'] = 'true';
    return { ...body, secret };
  },
});

export const listWebhooks = definePagedList({
  scope: 'read',
  input: ListWebhooksInputSchema,
  item: WebhookSchema,
  rest: {
    method: 'GET',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: 'List webhook endpoints',
    description: `Newest first, paged as \`GET /pets\` is. ${BETA}`,
    tags: ['webhooks'],
    stability: 'beta',
    successStatus: 200,
    successDescription: 'A page of endpoints, newest first.',
    errorResponses: { 400: 'An invalid or unknown query parameter, or an altered cursor.' },
  },
  cursor: { tag: 'webhooks.list.v1' },
  read: (ctx, _query, { after, limit }) =>
    webhookEndpointPage(ctx.database, { before: after, limit }),
  positionOf: (row) => row.seq,
  toItem: toWebhook,
});

export const getWebhook = defineQuery({
  scope: 'read',
  input: WebhookIdInputSchema,
  output: WebhookSchema,
  rest: {
    method: 'GET',
    path: '/webhooks/{webhookId}',
    operationId: 'getWebhook',
    summary: 'Get a webhook endpoint',
    description: `The endpoint, without its secret. ${BETA}`,
    tags: ['webhooks'],
    stability: 'beta',
    successStatus: 200,
    successDescription: 'The endpoint.',
    errorResponses: { 400: 'A malformed `webhookId`.', 404: NOT_FOUND },
  },
  handler: async (ctx, { webhookId }) => {
    const row = await findWebhookEndpoint(ctx.database, webhookId);
    if (!row) throw webhookNotFound(webhookId);
    return toWebhook(row);
  },
});

export const updateWebhook = defineMutation({
  scope: 'write',
  input: UpdateWebhookInputSchema,
  output: WebhookSchema,
  rest: {
    method: 'PATCH',
    path: '/webhooks/{webhookId}',
    operationId: 'updateWebhook',
    summary: 'Change a webhook endpoint',
    description: `Any of \`url\`, \`types\`, \`description\`, \`enabled\`. Enabled again, an endpoint receives what it missed that is still within its schedule. ${BETA}`,
    tags: ['webhooks'],
    stability: 'beta',
    successStatus: 200,
    successDescription: 'The endpoint as changed.',
    errorResponses: { 400: URL_REFUSED, 403: 'The API key is read-only.', 404: NOT_FOUND },
  },
  handler: async (ctx, { webhookId, url, ...patch }) => {
    const checked =
      url === undefined
        ? {}
        : { url: await checkEndpointUrl(url, ctx.settings.webhooks.allowPrivate) };
    const row = await updateWebhookEndpoint(ctx.database, webhookId, { ...patch, ...checked });
    if (!row) throw webhookNotFound(webhookId);
    return toWebhook(row);
  },
});

export const deleteWebhook = defineMutation({
  scope: 'write',
  input: WebhookIdInputSchema,
  output: z.void(),
  rest: {
    method: 'DELETE',
    path: '/webhooks/{webhookId}',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook endpoint',
    description: `Nothing more is sent to it; its deliveries are gone. ${BETA}`,
    tags: ['webhooks'],
    stability: 'beta',
    successStatus: 204,
    successDescription: 'Deleted.',
    errorResponses: {
      400: 'A malformed `webhookId`.',
      403: 'The API key is read-only.',
      404: NOT_FOUND,
    },
  },
  handler: async (ctx, { webhookId }) => {
    if (!(await deleteWebhookEndpoint(ctx.database, webhookId))) throw webhookNotFound(webhookId);
  },
});

export const rotateWebhookSecret = defineMutation({
  scope: 'write',
  input: WebhookIdInputSchema,
  output: WebhookWithSecretSchema,
  rest: {
    method: 'POST',
    path: '/webhooks/{webhookId}/secret',
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook endpoint's secret",
    description: `A new secret, returned here only. For 24 hours both the new and the previous secret sign every delivery (\`webhook-signature\` carries both, space separated). ${BETA}`,
    tags: ['webhooks'],
    stability: 'beta',
    successStatus: 200,
    successDescription: 'The endpoint, with its new signing secret.',
    errorResponses: {
      400: 'A malformed `webhookId`.',
      403: 'The API key is read-only.',
      404: NOT_FOUND,
    },
  },
  handler: async (ctx, { webhookId }) => {
    const secret = newSecret();
    const until = new Date(ctx.settings.webhooks.now().getTime() + PREVIOUS_SECRET_MS);
    const row = await rotateWebhookEndpointSecret(ctx.database, webhookId, secret, until);
    if (!row) throw webhookNotFound(webhookId);
    return { ...toWebhook(row), secret };
  },
});
