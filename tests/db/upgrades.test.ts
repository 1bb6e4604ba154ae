import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePgliteFrom } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgresFrom } from 'drizzle-orm/postgres-js/migrator';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle, type DatabaseOptions } from '../../db/client.js';
import { executeRows } from '../../db/database.js';
import { pgliteOptions } from '../../db/embedded/client.js';
import { DEFAULT_EMBEDDED_SETTINGS } from '../../db/embedded/settings.js';
import { migrationsFolder } from '../../db/migrate.js';
import { readInventory } from '../../db/queries/inventory.js';
import { callerFor } from '../helpers/caller.js';
import { createPostgresDatabase, emptyCluster, testDatabaseTarget } from '../helpers/database.js';
import { writer } from '../helpers/factories.js';

/** A copy of drizzle/ whose journal stops after its first `count` migrations. */
async function migrationsUpTo(count: number): Promise<{ folder: string; remove(): Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'petstore-migrations-'));
  await cp(migrationsFolder, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(await readFile(journalPath, 'utf8')) as { entries: unknown[] };
  journal.entries = journal.entries.slice(0, count);
  await writeFile(journalPath, JSON.stringify(journal));
  return { folder, remove: () => rm(folder, { recursive: true, force: true }) };
}

type Run = (statement: string) => Promise<Record<string, unknown>[]>;

/** Brings a database to the schema of an older release, and writes to it as that release did. */
async function atOlderRelease(
  target: DatabaseOptions,
  count: number,
  seed: (run: Run) => Promise<void>,
) {
  const old = await migrationsUpTo(count);
  try {
    if (target.kind === 'pglite') {
      const client = await PGlite.create(target.dataDir, {
        ...pgliteOptions(DEFAULT_EMBEDDED_SETTINGS),
        loadDataDir: emptyCluster(),
      });
      await migratePgliteFrom(drizzlePglite(client), { migrationsFolder: old.folder });
      await seed(
        async (statement) => (await client.query<Record<string, unknown>>(statement)).rows,
      );
      await client.close();
    } else {
      const client = postgres(target.url, { max: 1, onnotice: () => undefined });
      await migratePostgresFrom(drizzlePostgres(client), { migrationsFolder: old.folder });
      await seed((statement) => client.unsafe(statement));
      await client.end();
    }
  } finally {
    await old.remove();
  }
}

/** Storage for one upgrade: a PGlite data folder, or a database on the PostgreSQL server. */
async function upgradeTarget(): Promise<{ options: DatabaseOptions; destroy(): Promise<void> }> {
  const kind = testDatabaseTarget();
  if (kind.kind === 'postgres') {
    const { url, drop } = await createPostgresDatabase(kind);
    return { options: { kind: 'postgres', url, poolMax: 2 }, destroy: drop };
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'petstore-upgrade-'));
  return {
    options: { kind: 'pglite', dataDir },
    destroy: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/**
 * A database the release of the first `count` migrations wrote (`seed`), upgraded by today's
 * migrations and handed to `check`.
 */
async function upgradedFrom(
  count: number,
  seed: (run: Run) => Promise<void>,
  check: (handle: DatabaseHandle) => Promise<void>,
): Promise<void> {
  const target = await upgradeTarget();
  try {
    await atOlderRelease(target.options, count, seed);
    const handle = await openDatabase(target.options);
    try {
      await handle.migrate();
      await check(handle);
    } finally {
      await handle.close();
    }
  } finally {
    await target.destroy();
  }
}

const REX = { name: 'Rex', categoryId: 3, status: 'pending' } as const;
/** What createPet has always stored as the request's fingerprint. */
const REX_HASH = createHash('sha256')
  .update(JSON.stringify([REX.name, REX.categoryId, REX.status]))
  .digest('base64url');
const insertRex = `insert into pets (name, category_id, status) values ('Rex', 3, 'pending') returning id`;
const insertOthers = `insert into pets (name, category_id) values ('Ada', 1), ('Bo', 2)`;

describe('an existing database upgrades in place', () => {
  it.each([
    // 0001: a key names the pet it created.
    [
      2,
      (petId: number) =>
        `insert into idempotency_keys (api_key_id, key, request_hash, pet_id)
       values ('${writer.keyId}', 'before-upgrade', '${REX_HASH}', ${petId})`,
    ],
  ])(
    'from the first %i migrations: pets intact, keys replay the original create',
    async (count, insertKey) => {
      let petId = 0;
      await upgradedFrom(
        count,
        async (run) => {
          await run(insertOthers);
          petId = Number((await run(insertRex))[0]?.id);
          await run(insertKey(petId));
        },
        async (handle) => {
          const pets = await executeRows(
            handle.db,
            sql`select name, category_id::int, status, version, deleted_at from pets order by id`,
          );
          const live = { version: 1, deleted_at: null };
          expect(pets).toEqual([
            { name: 'Ada', category_id: 1, status: 'available', ...live },
            { name: 'Bo', category_id: 2, status: 'available', ...live },
            { name: 'Rex', category_id: 3, status: 'pending', ...live },
          ]);
          const body = { id: petId, ...REX };
          const keys = await executeRows(
            handle.db,
            sql`select operation, response from idempotency_keys`,
          );
          expect(keys).toEqual([
            { operation: 'createPet', response: { body, headers: { etag: `"${petId}.1"` } } },
          ]);

          const { caller, ctx } = callerFor({
            db: handle.db,
            principal: writer,
            idempotencyKey: 'before-upgrade',
          });
          await expect(caller.pets.create(REX)).resolves.toEqual(body);
          expect(ctx.responseHeaders).toMatchObject({
            etag: `"${petId}.1"`,
            'idempotent-replayed': 'true',
            location: `http://pets.test/v1/pets/${petId}`,
          });
        },
      );
    },
  );
});

describe('the inventory of a database written before it existed', () => {
  it('counts the pets an older release or an import wrote, and those imported after', async () => {
    // 0006_events is the last migration of the release before the inventory.
    await upgradedFrom(
      7,
      async (run) => {
        await run(`insert into pets (name, category_id, status)
        select 'Imported ' || g, 1, (array['available', 'pending', 'sold'])[1 + g % 3]::pet_status
        from generate_series(1, 300) as g`);
        await run(`update pets set deleted_at = now() where id % 10 = 0`);
      },
      async (handle) => {
        const expected = async () => {
          const rows = await executeRows<{ status: string; n: number }>(
            handle.db,
            sql`select status, count(*)::int as n from pets where deleted_at is null group by status`,
          );
          return Object.fromEntries(rows.map((row) => [row.status, row.n]));
        };
        expect(await readInventory(handle.db)).toEqual(await expected());
        expect(await readInventory(handle.db)).toEqual({ available: 90, pending: 90, sold: 90 });
        await handle.db.execute(
          sql`insert into pets (name, category_id, status) select 'Late ' || g, 2, 'sold'
          from generate_series(1, 50) as g`,
        );
        expect(await readInventory(handle.db)).toEqual({ available: 90, pending: 90, sold: 140 });
      },
    );
  });
});

describe('the names of a database written before 0016', () => {
  it('are each counted once in pet_names, deleted pets left out, once upgraded', async () => {
    // 0015 is the last migration before the distinct names were kept.
    await upgradedFrom(
      16,
      async (run) => {
        await run(`insert into pets (name, category_id, deleted_at)
        select (array['Bella', 'BELLA', 'Zoë', 'Max von Bark'])[1 + g % 4], 1,
          case when g % 5 = 0 then now() end
        from generate_series(1, 300) as g`);
      },
      async (handle) => {
        const names = await executeRows<{ name: string; live_pets: number }>(
          handle.db,
          sql`select name, live_pets from pet_names order by name`,
        );
        expect(names).toEqual([
          { name: 'bella', live_pets: 120 },
          { name: 'max von bark', live_pets: 60 },
          { name: 'zoë', live_pets: 60 },
        ]);
      },
    );
  });
});
