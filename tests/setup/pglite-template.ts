import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { dumpPglite } from '../../db/embedded/backup.js';
import { pgliteOptions } from '../../db/embedded/client.js';
import { makeEmptyDatabase, pgliteVersion } from '../../db/embedded/empty-database.js';
import { DEFAULT_EMBEDDED_SETTINGS } from '../../db/embedded/settings.js';

/** Kept between runs, where packages keep their caches; npm ci starts it afresh. */
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/petstore-tests/', import.meta.url));

/**
 * A cluster as initdb leaves it, with no migration applied, for the tests of the migrations
 * themselves: unpacking it costs about a third of the CPU of initdb, which each of those tests
 * otherwise ran (4 to 8 s of CPU each, what they spent their time on under load).
 */
async function makeEmptyCluster(): Promise<string> {
  const file = join(CACHE, `initdb-${await pgliteVersion()}.tar.gz`);
  if (existsSync(file)) return file;
  await mkdir(CACHE, { recursive: true });
  const client = await PGlite.create('memory://', pgliteOptions(DEFAULT_EMBEDDED_SETTINGS));
  try {
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, Buffer.from(await (await dumpPglite(client)).arrayBuffer()));
    await rename(partial, file);
  } finally {
    await client.close();
  }
  return file;
}

/**
 * The pglite project's templates. The migrated empty database the build makes, made here for
 * the repository's tsx runs (empty-database/, kept between runs while the migrations and PGlite
 * do not change): every test file's in-memory database is unpacked from it
 * (tests/helpers/database.ts), and a service the tests start on an empty folder fills the
 * folder from it, as the built service does, instead of running initdb. And the unmigrated
 * cluster above.
 */
export default async function setup(project: TestProject): Promise<void> {
  const { file } = await makeEmptyDatabase();
  project.provide('pgliteTemplate', file);
  project.provide('pgliteCluster', await makeEmptyCluster());
}
