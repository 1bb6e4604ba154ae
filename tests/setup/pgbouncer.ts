import type { TestProject } from 'vitest/node';
import { startPgBouncer } from '../helpers/pgbouncer.js';

/**
 * The `pgbouncer` project's database: the PostgreSQL server of TEST_DATABASE_URL behind a
 * PgBouncer in transaction mode that this setup starts for the run and stops after it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const target = project.config.provide.database;
  if (target?.kind !== 'postgres')
    throw new Error('the pgbouncer project needs a PostgreSQL server');
  const pooler = await startPgBouncer(target.url);
  project.provide('database', { ...target, poolerUrl: pooler.pooled(target.url) });
  return () => pooler.stop();
}
