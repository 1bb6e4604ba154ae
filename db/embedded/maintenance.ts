import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { executeRows, type Database } from '../database.js';

/**
 * PGlite has no autovacuum worker: it runs one backend and nothing else. Without this the
 * planner never gets statistics (a folder filled by an import plans as if empty) and deleted
 * rows are never reclaimed. The thresholds are PostgreSQL's autovacuum defaults.
 */
export const ANALYZE_THRESHOLD = { rows: 50, scaleFactor: 0.1 };
export const VACUUM_THRESHOLD = { rows: 50, scaleFactor: 0.2 };
/** How far a table's size may drift from the size its statistics were taken at. */
const PAGE_DRIFT = { pages: 8, scaleFactor: 0.1 };

export interface TableActivity {
  table: string;
  /** pg_class.reltuples: -1 until the table was first analyzed or vacuumed. */
  estimatedRows: number;
  /** pg_class.relpages: the size when statistics were last taken. */
  statisticsPages: number;
  /** The size now. */
  pages: number;
  modifiedSinceAnalyze: number;
  deadRows: number;
  /**
   * The table has rows but no column statistics, or an index on expressions has none: what an
   * import leaves when it builds the indexes after the data, which also sets the size and row
   * count in pg_class, so that the size tells nothing.
   */
  missingStatistics: boolean;
  /** The table's columns, quoted for SQL. */
  columns: string[];
}

export interface MaintenanceStep {
  table: string;
  action: 'vacuum' | 'analyze';
  /**
   * Analyze these columns only. ANALYZE with a column list leaves the statistics of index
   * expressions as they were: an expression index whose target is above the columns' would
   * otherwise set the sample of every round (0015, 0016 keep them at the columns' 3,000 rows).
   */
  columns?: readonly string[];
}

/**
 * When the steps run. At start no request waits yet, and a full ANALYZE may take its time; in a
 * round every request waits for the statement running, so an ANALYZE takes the columns only;
 * the index expressions' statistics are taken again at the next start that finds the table
 * changed.
 */
export type MaintenanceMoment = 'start' | 'round';

const activityQuery = sql`
  select c.relname as table, c.reltuples as estimated_rows, c.relpages as statistics_pages,
    (pg_relation_size(c.oid) / current_setting('block_size')::int)::int as pages,
    s.n_mod_since_analyze::int as modified, s.n_dead_tup::int as dead,
    array(select quote_ident(a.attname) from pg_attribute a
      where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      order by a.attnum) as columns,
    c.relpages > 0 and (
      not exists (select from pg_stats t where t.schemaname = s.schemaname and t.tablename = c.relname)
      or exists (select from pg_index i join pg_class ic on ic.oid = i.indexrelid
        where i.indrelid = c.oid and i.indexprs is not null and i.indpred is null
          and not exists (select from pg_stats t
            where t.schemaname = s.schemaname and t.tablename = ic.relname))
    ) as missing_statistics
  from pg_stat_user_tables s join pg_class c on c.oid = s.relid
  where s.schemaname = 'public'
  order by c.relname`;

/** What pg_stat_user_tables and pg_class say of every table of the service. */
export async function tableActivity(db: Database): Promise<TableActivity[]> {
  // Counters reach the view at most once a second; the changes just made count too.
  await db.execute(sql`select pg_stat_force_next_flush()`);
  const rows = await executeRows<{
    table: string;
    estimated_rows: number | string;
    statistics_pages: number | string;
    pages: number | string;
    modified: number | string;
    dead: number | string;
    columns: string[];
    missing_statistics: boolean;
  }>(db, activityQuery);
  return rows.map((row) => ({
    table: row.table,
    estimatedRows: Number(row.estimated_rows),
    statisticsPages: Number(row.statistics_pages),
    pages: Number(row.pages),
    modifiedSinceAnalyze: Number(row.modified),
    deadRows: Number(row.dead),
    missingStatistics: row.missing_statistics,
    columns: row.columns,
  }));
}

/**
 * The steps autovacuum would take now. PGlite's activity counters start from zero at every
 * open, so changes made before a restart or behind the service's back (an import, a restore)
 * are seen through the table's size instead: statistics taken at another size are stale, and
 * pages nobody vacuumed may hold dead rows and lack the visibility map index-only scans need.
 * An import that built the indexes after its data set the size itself; there the statistics
 * it left missing tell the same.
 */
export function maintenanceSteps(
  tables: readonly TableActivity[],
  moment: MaintenanceMoment,
): MaintenanceStep[] {
  const steps: MaintenanceStep[] = [];
  for (const table of tables) {
    const rows = Math.max(table.estimatedRows, 0);
    const drifted =
      table.missingStatistics ||
      Math.abs(table.pages - table.statisticsPages) >
        PAGE_DRIFT.pages + PAGE_DRIFT.scaleFactor * table.statisticsPages;
    const neverAnalyzed = table.estimatedRows < 0;
    if (drifted || table.deadRows > VACUUM_THRESHOLD.rows + VACUUM_THRESHOLD.scaleFactor * rows) {
      steps.push({ table: table.table, action: 'vacuum' });
    }
    if (
      drifted ||
      neverAnalyzed ||
      table.modifiedSinceAnalyze > ANALYZE_THRESHOLD.rows + ANALYZE_THRESHOLD.scaleFactor * rows
    ) {
      steps.push({
        table: table.table,
        action: 'analyze',
        ...(moment === 'round' && { columns: table.columns }),
      });
    }
  }
  return steps;
}

/** One step, one statement: PGlite serves nothing else while it runs. */
export async function runMaintenanceStep(db: Database, step: MaintenanceStep): Promise<void> {
  const table = sql.identifier(step.table);
  if (step.action === 'vacuum') await db.execute(sql`vacuum ${table}`);
  else if (step.columns)
    await db.execute(sql`analyze ${table} (${sql.raw(step.columns.join(', '))})`);
  else await db.execute(sql`analyze ${table}`);
}

/**
 * Each table's `n_mod_since_analyze` as it stood at its last ANALYZE with a column list, per
 * database: PostgreSQL resets that counter only after an ANALYZE of every column, so a round's
 * own ANALYZE would be due again at the next round. In this process only, as PGlite's counters
 * are: they start from zero at every open.
 */
const countedAtColumnAnalyze = new WeakMap<Database, Map<string, number>>();

/**
 * Takes the steps due now, one statement each, and returns them with how long each took.
 * Before each step the event loop gets a turn, so the requests that arrived meanwhile run
 * first: PGlite resolves a statement without I/O, and the steps would otherwise run back to back.
 */
export async function maintainTables(
  db: Database,
  moment: MaintenanceMoment,
): Promise<(MaintenanceStep & { durationMs: number })[]> {
  const counted = countedAtColumnAnalyze.get(db) ?? new Map<string, number>();
  countedAtColumnAnalyze.set(db, counted);
  const activity = await tableActivity(db);
  const modified = new Map(activity.map((table) => [table.table, table.modifiedSinceAnalyze]));
  const sinceOurs = activity.map((table) => ({
    ...table,
    modifiedSinceAnalyze: table.modifiedSinceAnalyze - (counted.get(table.table) ?? 0),
  }));
  const done: (MaintenanceStep & { durationMs: number })[] = [];
  for (const step of maintenanceSteps(sinceOurs, moment)) {
    await nextTurn();
    const started = performance.now();
    await runMaintenanceStep(db, step);
    done.push({ ...step, durationMs: Math.round(performance.now() - started) });
    if (step.action === 'analyze') {
      counted.set(step.table, step.columns ? (modified.get(step.table) ?? 0) : 0);
    }
  }
  return done;
}
