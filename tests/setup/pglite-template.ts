import type { TestProject } from 'vitest/node';
import { makeEmptyDatabase } from '../../db/embedded/empty-database.js';

/**
 * The pglite project's template: the migrated empty database the build makes, made here for the
 * repository's tsx runs (empty-database/, kept between runs while the migrations and PGlite do
 * not change). Every test file's in-memory database is unpacked from it
 * (tests/helpers/database.ts), and a service the tests start on an empty folder fills the folder
 * from it, as the built service does, instead of running initdb.
 */
export default async function setup(project: TestProject): Promise<void> {
  const { file } = await makeEmptyDatabase();
  project.provide('pgliteTemplate', file);
}
