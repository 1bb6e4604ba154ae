import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '../../../db/database.js';
import { runnerFor, statementOf, type Queryable } from '../../../db/runner.js';
import { webhookEndpoints } from './schema.js';
import type { EventType } from '../../../db/queries/events.js';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

export interface NewWebhookEndpoint {
  id: string;
  url: string;
  types: EventType[] | null;
  description: string | null;
  secret: string;
}

/** What an answer about an endpoint shows of it (never its secrets). */
export type WebhookEndpointFields = Pick<
  WebhookEndpointRow,
  'id' | 'url' | 'types' | 'description' | 'enabled' | 'createdAt'
>;

const insertStatement = statementOf(sql`
  insert into webhook_endpoints (id, url, types, description, secret, fanned_out_through)
  values (${sql.placeholder('id')}, ${sql.placeholder('url')},
    ${sql.placeholder('types')}::text::event_type[], ${sql.placeholder('description')},
    ${sql.placeholder('secret')}, (select coalesce(max(id), 0) from events))
  returning id, url, types::text[], description, enabled, created_at`);

/**
 * Stores an endpoint that starts after the last event there is: it receives the changes made
 * from its creation on (replayWebhook sends older ones). On `on`, so an idempotent create
 * stores it in the transaction that records its answer.
 */
export async function insertWebhookEndpoint(
  on: Queryable,
  endpoint: NewWebhookEndpoint,
): Promise<WebhookEndpointFields> {
  const [row] = await runnerFor(on).rows(insertStatement, {
    ...endpoint,
    types: endpoint.types === null ? null : `{${endpoint.types.join(',')}}`,
  });
  if (!row) throw new Error('insert returned no row');
  const [id, url, types, description, enabled, createdAt] = row;
  return {
    id: id as string,
    url: url as string,
    types: types as EventType[] | null,
    description: description as string | null,
    enabled: enabled as boolean,
    createdAt: new Date(createdAt as string | Date),
  };
}

export async function findWebhookEndpoint(
  db: Database,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row;
}

/** Endpoints newest first (by `seq`: ids are random), keyset paged. */
export function webhookEndpointPage(
  db: Database,
  { before, limit }: { before: number | undefined; limit: number },
): Promise<WebhookEndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(before === undefined ? undefined : lt(webhookEndpoints.seq, before))
    .orderBy(desc(webhookEndpoints.seq))
    .limit(limit);
}

export type WebhookEndpointPatch = Partial<
  Pick<WebhookEndpointRow, 'url' | 'types' | 'description' | 'enabled'>
>;

/** Changes an endpoint; enabling it again clears its failure streak. */
export async function updateWebhookEndpoint(
  db: Database,
  id: string,
  patch: WebhookEndpointPatch,
): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set(patch.enabled === true ? { ...patch, failingSince: null } : patch)
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return row;
}

/** Deletes an endpoint and, by cascade, its deliveries: nothing more is sent to it. */
export async function deleteWebhookEndpoint(db: Database, id: string): Promise<boolean> {
  const rows = await db
    .delete(webhookEndpoints)
    .where(eq(webhookEndpoints.id, id))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

/** A new secret; the current one keeps signing until `previousExpiresAt`. */
export async function rotateWebhookEndpointSecret(
  db: Database,
  id: string,
  secret: string,
  previousExpiresAt: Date,
): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      secret,
      previousSecret: webhookEndpoints.secret,
      previousSecretExpiresAt: previousExpiresAt,
    })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return row;
}

/** Disables an endpoint that answered 410, or has failed for too long. */
export async function disableWebhookEndpoint(db: Database, id: string): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({ enabled: false })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.enabled, true)));
}
