import { defineConfig } from 'vitest/config';

/**
 * The whole suite runs once on the embedded database and, when TEST_DATABASE_URL names a
 * PostgreSQL server, once more on it (each test file in its own database there).
 */
const postgresUrl = process.env.TEST_DATABASE_URL;

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'pglite', provide: { database: { kind: 'pglite' } } } },
      ...(postgresUrl
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                provide: { database: { kind: 'postgres' as const, url: postgresUrl } },
              },
            },
          ]
        : []),
    ],
  },
});
