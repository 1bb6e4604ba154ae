import postgres from 'postgres';
import { migrateDatabase } from './service.js';

/** The store's size when `--pets` is not given. */
export const DEFAULT_BENCH_PETS = 10_000;

/**
 * The pet count `--pets` asks for. Every connection of the write scenarios takes a pet of its
 * own among every third one (bench/load.ts), so the store needs three pets per connection.
 */
export function parsePetCount(text: string, connections: number): number {
  const pets = Number(text.replaceAll('_', ''));
  if (!Number.isSafeInteger(pets) || pets < 3 * connections) {
    throw new Error(
      `--pets must be a whole number of at least ${3 * connections} (3 per connection), not ${text}`,
    );
  }
  return pets;
}

/** Runs `statements` in turn on an administrative connection to the server at `serverUrl`. */
async function administer(serverUrl: string, statements: string[]): Promise<void> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  try {
    for (const statement of statements) await admin.unsafe(statement);
  } finally {
    await admin.end();
  }
}

export function dropDatabase(serverUrl: string, name: string): Promise<void> {
  return administer(serverUrl, [`drop database if exists "${name}" with (force)`]);
}

/** An empty database `name` on the server at `serverUrl` (dropped first if it exists): its URL. */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  await administer(serverUrl, [
    `drop database if exists "${name}" with (force)`,
    `create database "${name}"`,
  ]);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh database of `pets` pets with mixed statuses, migrated like production. */
export async function seedBenchDatabase(
  serverUrl: string,
  name: string,
  pets: number,
): Promise<string> {
  const url = await freshDatabase(serverUrl, name);
  migrateDatabase(url);
  const db = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await db`
      insert into pets (name, category_id, status)
      select 'Pet ' || g, 1 + g % 50, (array['available', 'pending', 'sold'])[1 + g % 3]::pet_status
      from generate_series(1, ${pets}) as g`;
    await db`analyze pets`;
    // The floor's own event log, the same table as the service's: the service's feed reads
    // `events` and would otherwise deliver the floor's changes to its streams on the floor's core.
    await db`create table floor_events (like events including all)`;
  } finally {
    await db.end();
  }
  return url;
}

/**
 * Undoes what the write scenarios leave behind (a run can stop between placing and cancelling
 * an order): no open order, and every third pet available again, as seeded.
 */
export async function resetWriteState(url: string): Promise<void> {
  const db = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await db`update orders set status = 'cancelled' where status in ('placed', 'approved')`;
    await db`update pets set status = 'available' where id % 3 = 0 and status <> 'available'`;
  } finally {
    await db.end();
  }
}
