import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { inCI } from './tests/helpers/ci.js';
import { PGBOUNCER_BIN } from './tests/helpers/pgbouncer.js';

/**
 * The whole suite runs once on the embedded database and, when TEST_DATABASE_URL names a
 * PostgreSQL server, once more on it (each test file in its own database there). The store,
 * orders, events, stream-limit and concurrency tests run a third time with the service behind
 * a PgBouncer in transaction mode (tests/setup/pgbouncer.ts starts it), as managed PostgreSQL
 * offers it.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
/** In CI the project always runs (and fails without PgBouncer); elsewhere where it is installed. */
const pooled = inCI() || existsSync(PGBOUNCER_BIN);

/**
 * What a pooler in transaction mode can break (transactions, statements, locks, LISTEN), and
 * the database faults with the pooler in the way: the cut, stall and late start tests then cut
 * the service from PgBouncer.
 */
const POOLED_TESTS = [
  'tests/router/orders.test.ts',
  'tests/router/pet-lifecycle.test.ts',
  'tests/http/orders.test.ts',
  'tests/http/pets.test.ts',
  'tests/http/pet-lifecycle.test.ts',
  'tests/http/events.test.ts',
  'tests/http/pet-history.test.ts',
  'tests/http/event-resume.test.ts',
  'tests/http/event-stream-limits.test.ts',
  'tests/events/key-revocation.test.ts',
  'tests/clients/trpc-subscription.test.ts',
  'tests/faults/concurrency.test.ts',
  'tests/faults/store-concurrency.test.ts',
  'tests/faults/pooler.test.ts',
  'tests/faults/locked-row.test.ts',
  'tests/faults/webhook-crash.test.ts',
  'tests/http/webhook-delivery.test.ts',
  'tests/faults/pooler-burst.test.ts',
  'tests/faults/reconnect-storm.test.ts',
  'tests/faults/database-cut.test.ts',
  'tests/faults/database-stall.test.ts',
  'tests/faults/database-start.test.ts',
  'tests/db/direct-connection.test.ts',
  'tests/db/transactions.test.ts',
];

/**
 * Most test files spend their time waiting on what they started (a service process, a proxy,
 * a database) rather than on the CPU, so one file more than there are cores keeps the cores
 * busy. vitest's default, one less than the cores, ran the files one at a time on a 2-core
 * machine: the embedded suite took 674 s so on a quiet machine, and 461 s three at a time
 * with other work on it.
 */
const WORKERS = availableParallelism() + 1;

export default defineConfig({
  test: {
    // The bench is a package of its own, with its own test run (bench/vitest.config.ts).
    exclude: [...configDefaults.exclude, 'bench/**'],
    maxWorkers: WORKERS,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          globalSetup: ['tests/setup/pglite-template.ts'],
          provide: { database: { kind: 'pglite' } },
        },
      },
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
      ...(postgresUrl && pooled
        ? [
            {
              extends: true as const,
              test: {
                name: 'pgbouncer',
                include: POOLED_TESTS,
                globalSetup: ['tests/setup/pgbouncer.ts'],
                provide: { database: { kind: 'postgres' as const, url: postgresUrl } },
              },
            },
          ]
        : []),
    ],
  },
});
