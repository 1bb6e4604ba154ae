import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { openDatabase, type DatabaseOptions } from '../../db/client.js';
import { executeRows } from '../../db/database.js';
import { migrationsFolder } from '../../db/migrate.js';
import { emptyFolderArchive } from '../../server/process/database.js';
import { spawnServer, type ChildServer, type LogLine } from '../helpers/child-server.js';
import { describeOnEmbedded } from '../helpers/database.js';
import { rawRequest } from '../helpers/http.js';

const KEY = 'first-start-archive-key-0123456789';
const migrationCount = (
  JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[];
  }
).entries.length;

/**
 * initdb gives every cluster a random system identifier; a cluster unpacked from an archive
 * keeps the archive's. So a folder with the archive's identifier was filled from it, and one
 * with another ran initdb. Also how many migrations the folder records as applied.
 */
async function inspect(options: DatabaseOptions): Promise<{ identifier: string; applied: number }> {
  const handle = await openDatabase(options);
  try {
    const [row] = await executeRows<{ identifier: string; applied: number }>(
      handle.db,
      sql`
        select (select system_identifier::text from pg_control_system()) as identifier,
               (select count(*)::int from drizzle.__drizzle_migrations) as applied
      `,
    );
    if (!row) throw new Error('no row');
    return row;
  } finally {
    await handle.close();
  }
}

function archiveIdentifier(): Promise<string> {
  const file = inject('pgliteTemplate');
  if (!file) throw new Error('the pglite project provides the archive');
  const archive = new Blob([readFileSync(file)]);
  return inspect({ kind: 'pglite', dataDir: 'memory://', archive }).then((row) => row.identifier);
}

describeOnEmbedded('a first start on an empty data folder', () => {
  let parent: string;
  let dataDir: string;
  let server: ChildServer;

  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), 'petstore-first-start-'));
    // Absent, not only empty: the service creates it.
    dataDir = join(parent, 'pglite');
    server = await spawnServer({ PGLITE_DIR: dataDir, API_KEYS: KEY });
  });
  afterAll(async () => {
    await server.stop();
    await rm(parent, { recursive: true, force: true });
  });

  it('fills the folder from the migrated archive, not initdb, and serves', async () => {
    const filled = (line: LogLine) => String(line.msg).includes('from the migrated archive');
    expect(server.logs.find(filled)).toMatchObject({ dataDir });
    const created = await rawRequest(server.origin, '/v1/pets', {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Unpacked', categoryId: 2 }),
    });
    expect(created.status).toBe(201);

    await server.stop();
    const folder = await inspect({ kind: 'pglite', dataDir });
    expect(folder).toEqual({ identifier: await archiveIdentifier(), applied: migrationCount });
  });
});

describeOnEmbedded('a first start without the archive', () => {
  let dataDir: string;
  let archives: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'petstore-initdb-'));
    archives = await mkdtemp(join(tmpdir(), 'petstore-no-archive-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
    await rm(archives, { recursive: true, force: true });
  });

  it('says so and runs initdb, as before', async () => {
    const lines: LogLine[] = [];
    const logger = pino(
      {},
      {
        write: (line: string) => {
          lines.push(JSON.parse(line) as LogLine);
        },
      },
    );
    expect(await emptyFolderArchive(dataDir, logger, archives)).toBeUndefined();
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [40, expect.stringContaining('running initdb')],
    ]);

    const handle = await openDatabase({ kind: 'pglite', dataDir });
    await handle.migrate();
    await handle.close();
    const folder = await inspect({ kind: 'pglite', dataDir });
    expect(folder.applied).toBe(migrationCount);
    expect(folder.identifier).not.toBe(await archiveIdentifier());
  });
});
