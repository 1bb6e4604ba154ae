import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/client.js';
import { executeRows, type Database } from '../../db/database.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { loadConformance } from '../helpers/conformance.js';
import { createPostgresDatabase, describeOnPostgres, postgresTarget } from '../helpers/database.js';
import { createHttpClients, type ApiClient } from '../helpers/http.js';
import { runBounded } from '../helpers/load.js';
import { useTestServer } from '../helpers/server.js';

/**
 * Many writers at once creating, renaming and deleting pets among a few names that differ only
 * in case, so that they share rows of pet_names: afterwards pet_names holds exactly the
 * distinct lower-cased names of the live pets and how many have each, and a search finds every
 * pet. In-process, and on PostgreSQL from two server processes on one database.
 */
const WRITERS = 16;
const ROUNDS = 5;
const NAMES = ['Bella', 'BELLA', 'bella Jr', 'Zoë', 'ZOË von Bark'];

const nameOf = (index: number) => NAMES[index % NAMES.length] as string;

type Names = { name: string; live_pets: number }[];

const kept = (db: Database) =>
  executeRows<Names[number]>(db, sql`select name, live_pets from pet_names order by name`);
const counted = (db: Database) =>
  executeRows<Names[number]>(
    db,
    sql`select lower(name) as name, count(*)::int as live_pets from pets
        where deleted_at is null group by 1 order by 1`,
  );

/** One writer's round: a create, a rename, a delete and a create under a name just emptied. */
async function churn(clients: ApiClient[], writer: number): Promise<void> {
  let turn = writer;
  const next = () => clients[turn++ % clients.length] as ApiClient;
  const create = async (name: string) =>
    (await next()<Pet>('POST', '/v1/pets', { body: { name, categoryId: 1 } })).body;
  const a = await create(nameOf(writer));
  const b = await create(nameOf(writer + 1));
  await next()('PATCH', `/v1/pets/${a.id}`, { body: { name: nameOf(writer + 2) } });
  await next()('DELETE', `/v1/pets/${b.id}`);
  await next()('PATCH', `/v1/pets/${a.id}`, { body: { status: 'sold' } });
  await create(nameOf(writer + 1));
}

async function churnAndCompare(clients: ApiClient[], db: Database): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    await runBounded(WRITERS, WRITERS, (writer) => churn(clients, writer + round * WRITERS));
  }
  const names = await kept(db);
  expect(names).toEqual(await counted(db));
  const found = await clients[0]?.<Pet[]>('GET', '/v1/pets?name=zo%C3%AB&limit=100');
  const zoës = names.filter((row) => row.name.includes('zoë'));
  expect(found?.body).toHaveLength(zoës.reduce((sum, row) => sum + row.live_pets, 0));
}

const CHURN_TIMEOUT_MS = 120_000;

describe('pet_names under concurrent writers, in-process', () => {
  const server = useTestServer();

  it(
    'equals the live pets’ names counted after creates, renames and deletes at once',
    async () => {
      await churnAndCompare([server.api], server.database.handle.db);
    },
    CHURN_TIMEOUT_MS,
  );
});

const KEY = 'pet-names-concurrency-key-0123456789';

describeOnPostgres('pet_names across two processes', () => {
  const cleanups: (() => Promise<void>)[] = [];
  const clients: ApiClient[] = [];
  let database: DatabaseHandle | undefined;

  beforeAll(async () => {
    const { url, drop } = await createPostgresDatabase(postgresTarget());
    cleanups.push(drop);
    const env = { DATABASE_URL: url, API_KEYS: KEY, RATE_LIMIT: 'off' };
    const started: ChildServer[] = await Promise.all([spawnServer(env), spawnServer(env)]);
    cleanups.unshift(...started.map((server) => () => server.stop()));
    database = await openDatabase({ kind: 'postgres', url, poolMax: 2 });
    const opened = database;
    cleanups.unshift(() => opened.close());
    for (const server of started) {
      const conformance = await loadConformance(server.origin);
      clients.push(createHttpClients(server.origin, conformance, KEY).api);
    }
  }, 120_000);

  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it(
    'equals the live pets’ names counted after both processes changed pets at once',
    async () => {
      if (!database) throw new Error('beforeAll did not open the database');
      await churnAndCompare(clients, database.db);
    },
    CHURN_TIMEOUT_MS,
  );
});
