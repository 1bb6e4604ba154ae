import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  openDatabase,
  readConnections,
  type DatabaseHandle,
  type DatabaseOptions,
} from '../../db/client.js';
import { findActiveApiKey } from '../../db/queries/api-keys.js';
import { findPet, insertPets } from '../../db/queries/pets.js';
import { issueApiKey } from '../../server/domain/auth/issue-api-key.js';
import { statementOf, transaction } from '../../db/runner.js';
import { createPostgresDatabase, describeOnPostgres, postgresTarget } from '../helpers/database.js';

const POOL_MAX = 4;

/** PostgreSQL only: PGlite has one connection for everything. */
describeOnPostgres('quick reads on connections of their own', () => {
  let database: DatabaseHandle;
  let server: postgres.Sql;
  let dropDatabase: () => Promise<void>;
  let databaseName: string;
  let petId: number;
  let key: { id: string };
  let options: DatabaseOptions;

  beforeAll(async () => {
    const { url, directUrl, drop } = await createPostgresDatabase(postgresTarget());
    dropDatabase = drop;
    databaseName = new URL(directUrl).pathname.slice(1);
    options = { kind: 'postgres', url, poolMax: POOL_MAX };
    database = await openDatabase(options);
    await database.migrate();
    server = postgres(directUrl, { max: 1, onnotice: () => undefined });
    const [pet] = await insertPets(database.db, [
      { name: 'Locked', categoryId: 1, status: 'available' },
    ]);
    if (!pet) throw new Error('no pet inserted');
    petId = pet.id;
    key = await issueApiKey(database.db, { name: 'reader', scope: 'read' });
  }, 60_000);

  afterAll(async () => {
    await server.end();
    await database.close();
    await dropDatabase();
  });

  it('looks up a key and reads a pet while every connection of the pool waits on a lock', async () => {
    const holder = await server.reserve();
    await holder.unsafe('begin');
    await holder.unsafe('select id from pets where id = $1 for update', [petId]);
    const waitForLock = statementOf(
      sql`select id from pets where id = ${sql.placeholder('id')} for update`,
    );
    let writersDone = false;
    const writers = Promise.all(
      Array.from({ length: POOL_MAX }, () =>
        transaction(database.db, (tx) => tx.rows(waitForLock, { id: petId })),
      ),
    ).finally(() => (writersDone = true));
    let timer: NodeJS.Timeout | undefined;
    try {
      // On one pool the read queued behind the writers until the lock went.
      const read = await Promise.race([
        Promise.all([findActiveApiKey(database.db, key.id), findPet(database.db, petId)]),
        new Promise((resolve) => (timer = setTimeout(resolve, 1_000, 'still waiting'))),
      ]);
      expect(read).toMatchObject([{ scope: 'read' }, { id: petId }]);
      expect(writersDone).toBe(false);
    } finally {
      clearTimeout(timer);
      await holder.unsafe('rollback');
      holder.release();
      await writers;
    }
  });

  it('pipelines a burst of reads on its own few connections', async () => {
    const connections = async () => {
      const [row] = await server<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = ${databaseName} and application_name = 'petstore'`;
      return row?.n ?? 0;
    };
    // A process of its own, which has opened no connection yet.
    const fresh = await openDatabase(options);
    try {
      const before = await connections();
      await Promise.all(Array.from({ length: 200 }, () => findPet(fresh.db, petId)));
      expect((await connections()) - before).toBe(readConnections(POOL_MAX));
    } finally {
      await fresh.close();
    }
  });
});
