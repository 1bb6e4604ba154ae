import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { describe, inject } from 'vitest';
import { openDatabase, type DatabaseHandle, type DatabaseOptions } from '../../db/client.js';

/**
 * Where the project's tests keep their data. On PostgreSQL, `url` names the server; with
 * `poolerUrl` (the `pgbouncer` project) the service reaches its database through that
 * transaction-mode pooler, while tests create, inspect and drop it directly.
 */
export type TestDatabaseTarget =
  { kind: 'pglite' } | { kind: 'postgres'; url: string; poolerUrl?: string };

export type PostgresTarget = Extract<TestDatabaseTarget, { kind: 'postgres' }>;

declare module 'vitest' {
  export interface ProvidedContext {
    database: TestDatabaseTarget;
    /** The pglite project's migrated empty database, as `dump` makes it (tests/setup/pglite-template.ts). */
    pgliteTemplate?: string;
    /** A cluster as initdb leaves it, no migration applied (tests/setup/pglite-template.ts). */
    pgliteCluster?: string;
  }
}

export interface TestDatabase {
  handle: DatabaseHandle;
  options: DatabaseOptions;
  /** Closes the handle and drops what was created for this test file. */
  destroy(): Promise<void>;
}

export function testDatabaseTarget(): TestDatabaseTarget {
  return inject('database');
}

type SuiteOptions = Parameters<typeof describe>[1];

/**
 * A suite for one kind of database only. On the other it is skipped with the reason in its
 * name, so that a run does not report a bare "skipped" that looks like something forgotten.
 */
function describeOn(kind: TestDatabaseTarget['kind'], reason: string) {
  return (name: string, optionsOrBody: SuiteOptions | (() => void), body?: () => void) => {
    const runs = testDatabaseTarget().kind === kind;
    const suite = runs ? describe : describe.skip;
    const title = runs ? name : `${name} [skipped: ${reason}]`;
    if (typeof optionsOrBody === 'function') suite(title, optionsOrBody);
    else suite(title, optionsOrBody, body);
  };
}

/** Needs a PostgreSQL server: several processes or connections sharing one database. */
export const describeOnPostgres = describeOn(
  'postgres',
  'needs PostgreSQL; runs in the postgres and pgbouncer projects when TEST_DATABASE_URL is set',
);

/** Needs the embedded database, and starts its own: it runs in the embedded project only. */
export const describeOnEmbedded = describeOn(
  'pglite',
  'embedded database only; it runs in the pglite project',
);

const archives = new Map<string, Blob>();

function archiveOf(file: string | undefined): Blob | undefined {
  if (file === undefined) return undefined;
  let archive = archives.get(file);
  if (!archive) {
    archive = new Blob([readFileSync(file)]);
    archives.set(file, archive);
  }
  return archive;
}

/**
 * The migrated empty database the run's setup made once, so that each in-memory database is
 * unpacked from it instead of running initdb (about 3 s of CPU each); the migrations still run
 * on it, and find nothing left to apply.
 */
const template = () => archiveOf(inject('pgliteTemplate'));

/**
 * The run's cluster with no migration applied, for the tests of the migrations: unpacked
 * instead of running initdb, as `template` is.
 */
export const emptyCluster = () => archiveOf(inject('pgliteCluster'));

/**
 * A fresh, migrated database: in-memory PGlite, or a new database on the PostgreSQL server.
 * `fromEmpty` makes the in-memory one start from the unmigrated cluster and run every migration
 * itself, for the tests of the migrations themselves.
 */
export async function createTestDatabase({ fromEmpty = false } = {}): Promise<TestDatabase> {
  const target = testDatabaseTarget();
  if (target.kind === 'pglite') {
    const archive = fromEmpty ? emptyCluster() : template();
    const options: DatabaseOptions = { kind: 'pglite', dataDir: 'memory://', archive };
    const handle = await openDatabase(options);
    await handle.migrate();
    return { handle, options, destroy: () => handle.close() };
  }
  const { url, drop } = await createPostgresDatabase(target);
  const options: DatabaseOptions = { kind: 'postgres', url, poolMax: 10 };
  const handle = await openDatabase(options);
  await handle.migrate();
  return {
    handle,
    options,
    destroy: async () => {
      await handle.close();
      await drop();
    },
  };
}

/**
 * A database of its own on the server, so parallel files and runs never see each other's rows:
 * `url` is how the service reaches it (through the pooler, if the target has one), `directUrl`
 * the server itself.
 */
export async function createPostgresDatabase(
  target: PostgresTarget,
): Promise<{ url: string; directUrl: string; drop: () => Promise<void> }> {
  const serverUrl = target.url;
  const name = `petstore_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const withName = (base: string) => {
    const url = new URL(base);
    url.pathname = `/${name}`;
    return url.toString();
  };
  return {
    url: withName(target.poolerUrl ?? serverUrl),
    directUrl: withName(serverUrl),
    drop: async () => {
      const cleanup = postgres(serverUrl, { max: 1, onnotice: () => undefined });
      try {
        await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

/** The PostgreSQL server (and pooler), for a suite declared with describeOnPostgres. */
export function postgresTarget(): PostgresTarget {
  const target = testDatabaseTarget();
  if (target.kind !== 'postgres') throw new Error('a PostgreSQL-only suite ran without PostgreSQL');
  return target;
}
