import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import { describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { migratePostgres, migrationsFolder } from '../../db/migrate.js';
import * as webhookSchema from '../../server/webhooks/storage/schema.js';
import * as schema from '../../db/schema.js';
import {
  createPostgresDatabase,
  createTestDatabase,
  describeOnPostgres,
  postgresTarget,
} from '../helpers/database.js';

interface Snapshot {
  id: string;
  tables: Record<
    string,
    { name: string; columns: Record<string, { name: string; notNull: boolean }> }
  >;
}

async function latestSnapshot(): Promise<Snapshot> {
  const metaFolder = join(migrationsFolder, 'meta');
  const snapshots = (await readdir(metaFolder))
    .filter((file) => file.endsWith('_snapshot.json'))
    .sort();
  const latest = snapshots.at(-1);
  if (!latest) throw new Error('no migration snapshot in drizzle/meta');
  return JSON.parse(await readFile(join(metaFolder, latest), 'utf8')) as Snapshot;
}

describe('drizzle/ migrations', () => {
  it('describe exactly db/schema.ts and server/webhooks/storage/schema.ts (nothing left for drizzle-kit generate)', async () => {
    const committed = await latestSnapshot();
    /* eslint-disable @typescript-eslint/no-unsafe-assignment
       -- drizzle-kit/api's snapshot types do not resolve under typescript-eslint (tsc accepts them) */
    const current = generateDrizzleJson(
      { ...schema, ...webhookSchema },
      committed.id,
      undefined,
      schema.DATABASE_CASING,
    );
    const pending = await generateMigration(committed, current);
    /* eslint-enable @typescript-eslint/no-unsafe-assignment */
    expect(pending).toEqual([]);
  });

  it('bring a fresh database to that schema', async () => {
    const database = await createTestDatabase({ fromEmpty: true });
    try {
      type Column = { table_name: string; column_name: string; is_nullable: string };
      const rows = await executeRows<Column>(
        database.handle.db,
        sql`select table_name, column_name, is_nullable from information_schema.columns
            where table_schema = 'public' order by table_name, column_name`,
      );
      const live = rows.map(
        (row) =>
          `${row.table_name}.${row.column_name}${row.is_nullable === 'NO' ? ' not null' : ''}`,
      );
      const expected = Object.values((await latestSnapshot()).tables).flatMap((table) =>
        Object.values(table.columns).map(
          (column) => `${table.name}.${column.name}${column.notNull ? ' not null' : ''}`,
        ),
      );
      expect(live.sort()).toEqual(expected.sort());
    } finally {
      await database.destroy();
    }
  });
});

// Racing migrators need a shared server; the embedded database serves one process only.
describeOnPostgres('migrations on PostgreSQL', () => {
  it('survive several servers migrating the same database at once', async () => {
    const { url, drop } = await createPostgresDatabase(postgresTarget());
    try {
      await Promise.all(Array.from({ length: 4 }, () => migratePostgres(url)));
      const journal = JSON.parse(
        await readFile(join(migrationsFolder, 'meta', '_journal.json'), 'utf8'),
      ) as {
        entries: unknown[];
      };
      const { default: postgres } = await import('postgres');
      const client = postgres(url, { max: 1 });
      const applied = await client`select count(*)::int as n from drizzle.__drizzle_migrations`;
      await client.end();
      expect(applied[0]?.n).toBe(journal.entries.length);
    } finally {
      await drop();
    }
  });
});
