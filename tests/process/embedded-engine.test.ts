import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { createPostgresDatabase, describeOnPostgres, postgresTarget } from '../helpers/database.js';

const recorder = fileURLToPath(new URL('../helpers/module-recorder/register.mjs', import.meta.url));

/** The URLs of every module the process resolved, as the recorder wrote them. */
function loadedModules(server: ChildServer): string[] {
  return [...server.output().matchAll(/^module-recorder: (.+)$/gm)].map((match) => match[1] ?? '');
}

/**
 * PGlite's engine is several MiB of code and heap that a service on PostgreSQL never runs; it
 * is imported only when the embedded database is opened (docs/performance.md, peak memory).
 */
describeOnPostgres('a service on PostgreSQL', () => {
  let server: ChildServer;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createPostgresDatabase(postgresTarget());
    drop = database.drop;
    server = await spawnServer({
      DATABASE_URL: database.url,
      API_KEYS: 'engine-test-key',
      NODE_OPTIONS: `--import ${recorder}`,
    });
    const ready = await fetch(`${server.origin}/readyz`);
    expect(ready.status).toBe(200);
  });

  afterAll(async () => {
    await server.stop();
    await drop();
  });

  it('never loads the embedded engine', () => {
    const modules = loadedModules(server);
    // The recorder saw the service's own driver, so an empty list cannot pass for a clean one.
    expect(modules.some((url) => url.includes('/node_modules/postgres/'))).toBe(true);
    expect(modules.filter((url) => url.includes('pglite'))).toEqual([]);
  });
});
