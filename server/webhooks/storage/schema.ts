import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgEnum,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { events, eventType } from '../../../db/schema.js';

/**
 * Webhook endpoints (docs/webhooks.md). `fanned_out_through` is the last event id the fan-out
 * has made deliveries for: a change's commit writes only its event, and the fan-out, off the
 * request path, turns each new event into one delivery per subscribed endpoint.
 */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: text().primaryKey(),
  /** The list's order, newest first. */
  seq: bigint({ mode: 'number' }).notNull().unique().generatedAlwaysAsIdentity(),
  url: text().notNull(),
  /** null: every type. */
  types: eventType().array(),
  description: text(),
  enabled: boolean().notNull().default(true),
  secret: text().notNull(),
  /** The secret before the last rotation, which signs too until `previous_secret_expires_at`. */
  previousSecret: text(),
  previousSecretExpiresAt: timestamp({ withTimezone: true }),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  /** When its deliveries started failing without a success since; null while healthy. */
  failingSince: timestamp({ withTimezone: true }),
  fannedOutThrough: bigint({ mode: 'number' }).notNull(),
});

export const webhookDeliveryStatus = pgEnum('webhook_delivery_status', [
  'pending',
  'succeeded',
  'failed',
]);

/**
 * One row per event and subscribed endpoint. A worker claims a due one by setting
 * `lease_until` (FOR UPDATE SKIP LOCKED): nobody else takes it until the lease runs out, so a
 * crashed worker's deliveries are taken over without any session state.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    endpointId: text()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    // Kept as long as its event: retention deletes both (and spares the events still pending).
    eventId: bigint({ mode: 'number' })
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    status: webhookDeliveryStatus().notNull().default('pending'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp({ withTimezone: true }),
    lastAttemptAt: timestamp({ withTimezone: true }),
    lastResponseStatus: integer(),
    lastError: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_endpoint_event_idx').on(t.endpointId, t.eventId),
    // The list, newest first.
    index('webhook_deliveries_endpoint_id_idx').on(t.endpointId, t.id),
    // Each endpoint's queue in the order a claim takes it, so a claim reads the 10 it takes
    // and not a backlog: keyed on next_attempt_at alone, a claim behind 37,000 pending
    // deliveries read and sorted them all (75 ms), and held an endpoint to 100 a second.
    index('webhook_deliveries_queue_idx')
      .on(t.endpointId, t.nextAttemptAt, t.id)
      .where(sql`${t.status} = 'pending'`),
    // The leases an endpoint holds, which a claim counts against its 10 slots.
    index('webhook_deliveries_leased_idx')
      .on(t.endpointId, t.leaseUntil)
      .where(sql`${t.status} = 'pending' and ${t.leaseUntil} is not null`),
    // Retention asks whether an event is still pending somewhere, and cascades by event.
    index('webhook_deliveries_event_idx').on(t.eventId),
  ],
);
