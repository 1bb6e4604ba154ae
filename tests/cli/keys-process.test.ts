import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { testDatabaseTarget } from '../helpers/database.js';
import { acceptedAfterRevokeMs, keysProcess } from '../helpers/keys-cli.js';
import { startTestServer } from '../helpers/server.js';

describe('npm run keys, as a separate process', () => {
  it('exits 2 with the usage on a bad command line, before touching any database', async () => {
    const run = await keysProcess(['create', '--scope', 'read'], {
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^Error: create needs --name <name>/);
  });

  it('exits 78 naming the setting when the configuration is wrong', async () => {
    const run = await keysProcess(['list'], { DATABASE_URL: 'mysql://localhost/x' });
    expect(run.code).toBe(78);
    expect(run.stderr).toMatch(/DATABASE_URL/);
  });

  // Two processes, two database opens and a server: generous, for busy machines.
  it(
    'issues a key on the service database that a server there accepts',
    { timeout: 90_000 },
    async () => {
      const target = testDatabaseTarget();
      if (target.kind === 'postgres') await whileServerRuns();
      else await beforeServerStarts();
    },
  );
});

/** PostgreSQL: the command line and a running server share the database at once. */
async function whileServerRuns(): Promise<void> {
  const server = await startTestServer();
  try {
    const { options } = server.database;
    if (options.kind !== 'postgres') throw new Error('expected a PostgreSQL test database');
    const env = { DATABASE_URL: options.url };
    const created = await keysProcess(['create', '--name', 'e2e', '--json'], env);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const issued = JSON.parse(created.stdout) as { id: string; key: string };
    expect((await server.api('GET', '/v1/pets', { key: issued.key })).status).toBe(200);

    expect((await keysProcess(['revoke', issued.id], env)).code).toBe(0);
    const status = async () => (await server.api('GET', '/v1/pets', { key: issued.key })).status;
    // Revocation reaches a running server within 1 s (docs/api-keys.md).
    expect(await acceptedAfterRevokeMs(performance.now(), status)).toBeLessThanOrEqual(1_000);
  } finally {
    await server.close();
  }
}

/** PGlite with no service running: the command opens the data folder itself. */
async function beforeServerStarts(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'petstore-keys-'));
  const created = await keysProcess(['create', '--name', 'e2e', '--scope', 'read', '--json'], {
    PGLITE_DIR: dataDir,
  });
  expect(created).toMatchObject({ code: 0, stderr: '' });
  const issued = JSON.parse(created.stdout) as { key: string; scope: string };
  expect(issued.scope).toBe('read');

  const options = { kind: 'pglite', dataDir } as const;
  const handle = await openDatabase(options);
  const server = await startTestServer({
    database: {
      handle,
      options,
      destroy: async () => {
        await handle.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    },
  });
  try {
    expect((await server.api('GET', '/v1/pets', { key: issued.key })).status).toBe(200);
    const write = await server.api('POST', '/v1/pets', {
      key: issued.key,
      body: { name: 'Rex', categoryId: 1 },
    });
    expect(write.status).toBe(403);
  } finally {
    await server.close();
  }
}
