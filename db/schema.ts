import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/**
 * Column names in the database are the schema's keys in snake_case: the drizzle instances,
 * drizzle-kit and statements built without an instance all use this.
 */
export const DATABASE_CASING = 'snake_case';

/** A response as an Idempotency-Key replays it. */
export interface StoredResponse {
  body: unknown;
  headers: Record<string, string>;
}

export const petStatus = pgEnum('pet_status', ['available', 'pending', 'sold']);

export const pets = pgTable(
  'pets',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    name: text().notNull(),
    categoryId: bigint({ mode: 'number' }).notNull(),
    status: petStatus().notNull().default('available'),
    /** Starts at 1 and grows by one with every change; the pet's ETag is made from it. */
    version: integer().notNull().default(1),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /**
     * Set when the pet is deleted. The row stays, so orders that sold it still name a real pet
     * and its id is never reused; every read of live pets filters on it.
     */
    deletedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    // Serves "WHERE status = $1 AND id > $2 AND deleted_at IS NULL ORDER BY id" without a sort.
    index('pets_live_status_id_idx')
      .on(t.status, t.id)
      .where(sql`${t.deletedAt} is null`),
    // The category filter: "WHERE category_id = $1 AND id > $2 ... ORDER BY id" without a sort.
    index('pets_live_category_id_id_idx')
      .on(t.categoryId, t.id)
      .where(sql`${t.deletedAt} is null`),
    // The name filter's second step: the pets with one lower-cased name, in id order, from the
    // first that a page needs (pet_names is the first step; docs/pagination.md). The name,
    // status and category are in the index too, so that candidates are read and filtered from
    // the index alone: the planner reads lower(name) from an index only when name is there.
    index('pets_live_lower_name_id_idx')
      .on(sql`lower(${t.name})`, t.id, t.name, t.status, t.categoryId)
      .where(sql`${t.deletedAt} is null`),
    // The API promises 1..255 characters; the database refuses anything else even from other writers.
    check('pets_name_length', sql`char_length(${t.name}) between 1 and 255`),
    check('pets_category_id_positive', sql`${t.categoryId} > 0`),
  ],
);

/**
 * Every lower-cased name that a live pet has, with how many do: a name search looks for its
 * term here, among the distinct names, rather than among the pets (docs/pagination.md).
 * Triggers on pets keep it in the transaction of every change, whoever writes
 * (drizzle/0016_pet_names.sql).
 */
export const petNames = pgTable(
  'pet_names',
  {
    /** lower(pets.name) */
    name: text().primaryKey(),
    livePets: integer().notNull(),
  },
  (t) => [
    // A contains pattern that does not start at the beginning of the name needs trigrams.
    index('pet_names_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
  ],
);

export const apiKeyScope = pgEnum('api_key_scope', ['read', 'write']);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text().primaryKey(),
    name: text().notNull(),
    secretHash: text().notNull(),
    scope: apiKeyScope().notNull().default('write'),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (t) => [uniqueIndex('api_keys_secret_hash_idx').on(t.secretHash)],
);

/**
 * One row per Idempotency-Key a caller used, written in the same transaction as the change it
 * made, so neither can exist without the other. It keeps the original response, so
 * a replay answers exactly what was sent even after the resource changed. Rows older than the
 * retention window are ignored on lookup and purged in the background.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    // Not a foreign key: keys from configuration (API_KEYS) have no api_keys row.
    apiKeyId: text().notNull(),
    key: text().notNull(),
    /** The operationId the key was used on: the same key on another operation is a conflict. */
    operation: text().notNull(),
    /** SHA-256 of the validated input, to tell a retry from a different request. */
    requestHash: text().notNull(),
    /** The original response: its body and the headers not derived from the request. */
    response: jsonb().$type<StoredResponse>().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.key] }),
    index('idempotency_keys_created_at_idx').on(t.createdAt),
  ],
);

export const orderStatus = pgEnum('order_status', ['placed', 'approved', 'delivered', 'cancelled']);

/** The statuses of an order that still holds its pet. */
export const OPEN_ORDER_STATUSES = [
  'placed',
  'approved',
] as const satisfies readonly (typeof orderStatus.enumValues)[number][];

/**
 * The same as an SQL list, for the one-open-order index below and the query that finds the open
 * order (db/queries/orders.ts): the planner uses a partial index only where the query's
 * condition matches the index's.
 */
export const OPEN_ORDER_STATUS_LIST = sql.raw(
  OPEN_ORDER_STATUSES.map((status) => `'${status}'`).join(', '),
);

export const orders = pgTable(
  'orders',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    petId: bigint({ mode: 'number' })
      .notNull()
      .references(() => pets.id),
    status: orderStatus().notNull().default('placed'),
    placedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('orders_status_id_idx').on(t.status, t.id),
    index('orders_pet_id_id_idx').on(t.petId, t.id),
    // At most one open order per pet, whatever the writers do: the last word on a race.
    uniqueIndex('orders_one_open_per_pet_idx')
      .on(t.petId)
      .where(sql`${t.status} in (${OPEN_ORDER_STATUS_LIST})`),
  ],
);

export const eventType = pgEnum('event_type', [
  'pet.created',
  'pet.updated',
  'pet.deleted',
  'order.placed',
  'order.updated',
]);

/** The events whose data is a pet (`{ id }` for pet.deleted): a pet's history. */
export const PET_EVENT_TYPES = ['pet.created', 'pet.updated', 'pet.deleted'] as const;

/** As SQL, for the history index and the query it serves, so the two conditions match. */
export const PET_EVENT_TYPE_LIST = sql.raw(PET_EVENT_TYPES.map((type) => `'${type}'`).join(', '));

/**
 * Every change, written in the same transaction as the change. Ids come from the identity
 * sequence while a transaction-scoped lock is held until commit (db/queries/events.ts), so they
 * become visible to readers in ascending order: resuming after an id never misses an earlier
 * event that committed later.
 */
export const events = pgTable(
  'events',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    type: eventType().notNull(),
    occurredAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** The pet or order after the change (`{ id }` for a deleted pet), as the API shows it. */
    data: jsonb().notNull(),
  },
  (t) => [
    index('events_occurred_at_idx').on(t.occurredAt),
    // A pet's history, newest first (db/queries/pet-history.ts): its events by the pet's id.
    index('events_pet_history_idx')
      .on(sql`((${t.data}->>'id')::bigint)`, t.id)
      .where(sql`${t.type} in (${PET_EVENT_TYPE_LIST})`),
  ],
);

/**
 * One row: the highest event id the retention purge has deleted. Resuming after an id below
 * it would miss events, so it is refused (410) rather than answered with a gap.
 */
export const eventRetention = pgTable(
  'event_retention',
  {
    id: integer().primaryKey().default(1),
    prunedThrough: bigint({ mode: 'number' }).notNull().default(0),
  },
  (t) => [check('event_retention_one_row', sql`${t.id} = 1`)],
);

/**
 * Live pets per status, spread over slots so that concurrent writers rarely touch the same row:
 * the sum over a status's slots is its count. Triggers on pets keep it in the transaction of
 * every change (drizzle/0009_pet_inventory_triggers.sql); docs/store.md says why it is exact.
 */
export const petInventory = pgTable(
  'pet_inventory',
  {
    status: petStatus().notNull(),
    slot: integer().notNull(),
    count: bigint({ mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.status, t.slot] })],
);

/**
 * The event streams each API key holds open, counted across processes and instances: a row per
 * slot, held by one process until it gives it back or stops renewing it (a process that died).
 * Leases rather than session locks, so that nothing depends on a session of its own: behind a
 * pooler in transaction mode every statement may reach another server connection.
 */
export const streamSlots = pgTable(
  'stream_slots',
  {
    keyId: text().notNull(),
    slot: integer().notNull(),
    /** The process holding it (its random id, new at every start). */
    holder: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.keyId, t.slot] }),
    index('stream_slots_holder_idx').on(t.holder),
  ],
);

/**
 * Stream tickets: how a browser's EventSource, which cannot send a header, opens an event
 * stream as its key. Only the ticket's SHA-256 is kept; a ticket opens one stream, before
 * `expires_at`, and redeeming it deletes its row. In the database so that any process or
 * instance can redeem it.
 */
export const streamTickets = pgTable(
  'stream_tickets',
  {
    hash: text().primaryKey(),
    keyId: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index('stream_tickets_expires_at_idx').on(t.expiresAt)],
);
