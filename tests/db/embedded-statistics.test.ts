import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { executeRows } from '../../db/database.js';
import { spawnServer } from '../helpers/child-server.js';
import { describeOnEmbedded } from '../helpers/database.js';

const LOADED_PETS = 60_000;

/** Every plan node of an EXPLAIN (FORMAT JSON) answer, depth first. */
function planNodes(plan: Record<string, unknown>): Record<string, unknown>[] {
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [plan, ...children.flatMap(planNodes)];
}

async function explain(dataDir: string, query: string) {
  const handle = await openDatabase({ kind: 'pglite', dataDir });
  try {
    const [row] = await executeRows<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>(
      handle.db,
      sql.raw(`explain (format json) ${query}`),
    );
    return planNodes(row?.['QUERY PLAN'][0].Plan ?? {});
  } finally {
    await handle.close();
  }
}

async function tableStatistics(dataDir: string) {
  const handle = await openDatabase({ kind: 'pglite', dataDir });
  try {
    const [row] = await executeRows<{ reltuples: number; relallvisible: number; pages: number }>(
      handle.db,
      sql`select reltuples, relallvisible, (pg_relation_size(oid) / 8192)::int as pages
          from pg_class where relname = 'pets'`,
    );
    return row;
  } finally {
    await handle.close();
  }
}

/**
 * An import or a restore leaves a folder whose statistics describe an empty store: written by
 * the service's migrations, then filled with the service stopped.
 */
async function loadBehindTheServicesBack(dataDir: string, { indexesAfter = false } = {}) {
  const handle = await openDatabase({ kind: 'pglite', dataDir });
  try {
    await handle.migrate();
    // A bulk import drops the indexes and builds them after the data, which also sets the
    // table's size and row count in pg_class: only the column statistics are missing then.
    const indexes = await executeRows<{ name: string; definition: string }>(
      handle.db,
      sql`select indexname as name, indexdef as definition from pg_indexes
          where tablename = 'pets' and indexname <> 'pets_pkey'`,
    );
    if (indexesAfter) {
      for (const index of indexes)
        await handle.db.execute(sql`drop index ${sql.identifier(index.name)}`);
    }
    await handle.db.execute(sql`
      insert into pets (name, category_id, status)
      select 'Pet ' || g, 1 + g % 50,
        (case when g % 100 = 0 then 'pending' else 'available' end)::pet_status
      from generate_series(1, ${LOADED_PETS}) g`);
    await handle.db.execute(sql`delete from pets where id % 10 = 0`);
    if (indexesAfter) {
      for (const index of indexes) await handle.db.execute(sql.raw(index.definition));
    }
  } finally {
    await handle.close();
  }
}

describeOnEmbedded('an import', () => {
  describe.each([
    ['its indexes kept', false],
    ['its indexes built after the data', true],
  ])(
    'statistics of an embedded folder loaded while the service was stopped, %s',
    (_label, indexesAfter) => {
      let dataDir: string;

      beforeAll(async () => {
        dataDir = mkdtempSync(join(tmpdir(), 'petstore-loaded-'));
        await loadBehindTheServicesBack(dataDir, { indexesAfter });
        const server = await spawnServer({ PGLITE_DIR: dataDir });
        await server.stop();
      }, 120_000);
      afterAll(() => {
        rmSync(dataDir, { recursive: true, force: true });
      });

      it('are gathered at start: the first page of GET /v1/pets reads the primary key', async () => {
        const nodes = await explain(
          dataDir,
          'select id, name, category_id, status from pets where deleted_at is null and id > 0 order by id limit 20',
        );
        expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
        expect(nodes.map((node) => node['Index Name'])).toContain('pets_pkey');
      });

      it('are gathered at start: the status filter reads its index', async () => {
        const nodes = await explain(
          dataDir,
          `select id, name, category_id, status from pets
         where status = 'pending' and deleted_at is null and id > 0 order by id limit 20`,
        );
        expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
        expect(nodes.map((node) => node['Index Name'])).toContain('pets_live_status_id_idx');
      });

      it('counts the rows the service did not write, and vacuums the table they are in', async () => {
        const stats = await tableStatistics(dataDir);
        expect(stats?.reltuples).toBeGreaterThan(LOADED_PETS * 0.8);
        expect(stats?.reltuples).toBeLessThan(LOADED_PETS);
        // Only VACUUM marks pages all-visible; ANALYZE alone leaves relallvisible at 0.
        expect(stats?.relallvisible).toBeGreaterThan((stats?.pages ?? 0) * 0.9);
      });
    },
  );
});
