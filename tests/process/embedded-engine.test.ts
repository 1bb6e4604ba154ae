import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { createPostgresDatabase, describeOnPostgres, postgresTarget } from '../helpers/database.js';

const recorder = fileURLToPath(new URL('../helpers/module-recorder/register.mjs', import.meta.url));

/**
 * The URLs of every ES module the process resolved, as the recorder wrote them (a CommonJS
 * `require` does not pass through the hooks; PGlite and drizzle's PGlite driver are ES modules).
 */
function loadedModules(server: ChildServer): string[] {
  return [...server.output().matchAll(/^module-recorder: (.+)$/gm)].map((match) => match[1] ?? '');
}

/**
 * PGlite's engine is code and heap a service on PostgreSQL never runs (about 2 MiB at peak);
 * it is imported only when the embedded database is opened (docs/performance.md, peak memory).
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
      NODE_OPTIONS: `--import ${JSON.stringify(recorder)}`,
    });
    const ready = await fetch(`${server.origin}/readyz`);
    expect(ready.status).toBe(200);
    // A request's whole path and the shutdown's too, before the modules are read.
    const page = await fetch(`${server.origin}/v1/pets`, {
      headers: { authorization: 'Bearer engine-test-key' },
    });
    expect(page.status).toBe(200);
    await server.stop();
  });

  afterAll(() => drop());

  it('never loads the embedded engine', () => {
    const modules = loadedModules(server);
    // The recorder saw the service's own driver, so an empty list cannot pass for a clean one.
    expect(modules.some((url) => url.includes('/node_modules/postgres/'))).toBe(true);
    const engine = /\/node_modules\/(@electric-sql\/pglite|drizzle-orm\/pglite)\//;
    expect(modules.filter((url) => engine.test(url))).toEqual([]);
  });
});
