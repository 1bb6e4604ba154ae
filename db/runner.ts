import type { PGlite, Transaction } from '@electric-sql/pglite';
import { fillPlaceholders, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { ReservedSql, Sql } from 'postgres';
import type { DatabaseBudget } from './deadline.js';
import { assertBudgetLeft, beginFor, bounded, retryingLockWaits } from './statement-bounds.js';
import type { Database } from './database.js';
import { DATABASE_CASING } from './schema.js';

/** A statement built once, its parameters values or drizzle placeholders filled in per run. */
export interface Statement {
  sql: string;
  params: unknown[];
  /**
   * Planned for its values on every run. A prepared statement may switch to one generic plan
   * for all values, and where the best plan depends on the value (how rare a name is), that
   * plan can read every row; unprepared, PostgreSQL plans each run with its parameters.
   */
  planEachRun?: boolean;
  /**
   * Only reads, takes no lock and takes about as long whatever the data: run outside a
   * transaction, it goes to the read connections, where it may queue behind other quick reads
   * but never behind a write, a lock or a long search.
   */
  quickRead?: boolean;
}

/** How a statement is run: see Statement. */
type StatementOptions = Pick<Statement, 'planEachRun' | 'quickRead'>;

const dialect = new PgDialect({ casing: DATABASE_CASING });

/** The text and parameters of a drizzle `sql` template or query builder, built once. */
export function statementOf(
  query: SQL | { toSQL(): Statement },
  options: StatementOptions = {},
): Statement {
  const { sql, params } = 'toSQL' in query ? query.toSQL() : dialect.sqlToQuery(query);
  return { sql, params, ...options };
}

/**
 * Runs statements as prepared statements, their rows as arrays in select-list order: on the
 * database (the pool) or on one transaction. Prepared, postgres.js describes a statement once
 * per connection; run unprepared, as drizzle's own queries are, it asks the server to describe
 * every one first, a round trip more each time. The rows are mapped in db/queries, once per
 * table, so drizzle's generic row mapping is not paid either. JSON goes in as text cast in
 * SQL (`::text::jsonb`): a parameter typed jsonb would go through the driver's serializer,
 * which drizzle replaces on the clients it wraps, so the result would depend on who made it.
 */
export interface Runner {
  rows(statement: Statement, values?: Record<string, unknown>): Promise<unknown[][]>;
}

/** The database's runner, which also opens transactions. */
export interface Transactor extends Runner {
  transaction<T>(work: (tx: Runner) => Promise<T>): Promise<T>;
}

const params = (statement: Statement, values: Record<string, unknown> = {}) =>
  fillPlaceholders(statement.params, values) as never[];

/**
 * Whether statements are prepared under a name on the server. Named statements outlive the
 * transaction that made them, so behind a pooler in transaction mode the next transaction may
 * reach a server connection that never saw them: there every statement is unnamed.
 */
export interface StatementMode {
  prepared: boolean;
}

function postgresRows(
  client: Sql | ReservedSql,
  mode: StatementMode,
  budget: DatabaseBudget | undefined,
): Runner['rows'] {
  // The query itself is returned: an async wrapper here changed how fresh processes collect
  // garbage under load (docs/performance.md).
  return (statement, values) => {
    // postgres.js sends a statement without parameters as a simple query unless `simple` is
    // false (porsager/postgres#794): its text every time, parsed, planned and described
    // every time. A variable, not a literal in the call: `simple` is not in its option types.
    const options = { prepare: mode.prepared && statement.planEachRun !== true, simple: false };
    // A quick read is not bounded (db/statement-bounds.ts): it takes no lock and about as long
    // whatever the data, so there is nothing to cancel. Bounding it cost more than it saves: on
    // Node 22 a request's quick reads then outlived it into the old generation and made get
    // 1.3x the CPU (docs/performance.md).
    if (statement.quickRead === true) {
      return client.unsafe<unknown[][]>(statement.sql, params(statement, values), options).values();
    }
    return bounded(budget, () =>
      client.unsafe<unknown[][]>(statement.sql, params(statement, values), options).values(),
    );
  };
}

/** A transaction the server ended otherwise than by committing it. */
export class TransactionNotCommittedError extends Error {
  override name = 'TransactionNotCommittedError';
}

/**
 * Runs `work` between BEGIN and COMMIT on one reserved connection, and succeeds only when the
 * server answers COMMIT: PostgreSQL answers the COMMIT of a transaction that an error aborted
 * with ROLLBACK and no error, so a driver that swallowed that error would report a write that
 * never happened. A connection reserved after its request gave up runs nothing, and work whose
 * request gave up meanwhile is rolled back rather than committed.
 */
async function postgresTransaction<T>(
  client: Sql,
  mode: StatementMode,
  budget: DatabaseBudget | undefined,
  work: (tx: Runner) => Promise<T>,
): Promise<T> {
  const session = await client.reserve();
  try {
    assertBudgetLeft(budget);
    await bounded(budget, () => session.unsafe(beginFor(budget)));
    const result = await work({ rows: postgresRows(session, mode, budget) });
    assertBudgetLeft(budget);
    const { command } = await session.unsafe('commit');
    if (command !== 'COMMIT') {
      throw new TransactionNotCommittedError(`The database ended the transaction with ${command}`);
    }
    return result;
  } catch (error) {
    await session.unsafe('rollback').catch(() => undefined);
    throw error;
  } finally {
    session.release();
  }
}

/** SQLSTATE 26000: this server connection holds no statement of that name. */
const isMissingStatement = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === '26000';

/**
 * A process's connections to PostgreSQL, in two sets. A transaction holds a connection of its
 * own until it ends, and so may a statement that waits on a lock; quick reads need neither,
 * and on a few connections they are pipelined, several to a write and a wake-up of the
 * server, at a fraction of the cost per statement (docs/performance.md). The same client
 * twice for a pool too small to split (db/client.ts, readConnections).
 */
export interface PostgresClients {
  /** Transactions and every statement but quick reads. */
  pool: Sql;
  /** Quick reads outside transactions. */
  reads: Sql;
}

/**
 * A database's runner for the work of one budget (a request's), or for work that belongs to no
 * request when `budget` is undefined (db/statement-bounds.ts says how each is bounded).
 */
export type RunnerFactory = (budget: DatabaseBudget | undefined) => Transactor;

/**
 * The database's runners. Statements are named only where the server proved it sees our
 * connections directly (db/direct-connection.ts). Should a named statement still be missing on
 * the server, something pools the connections after all: from then on every statement is
 * unnamed, and the transaction that found out (aborted by that error before anything
 * committed) runs once more.
 */
export function postgresRunners(
  { pool, reads }: PostgresClients,
  mode: StatementMode,
): RunnerFactory {
  return (budget) => {
    const poolRows = postgresRows(pool, mode, budget);
    const readRows = postgresRows(reads, mode, budget);
    return {
      rows: (statement, values) =>
        statement.quickRead === true ? readRows(statement, values) : poolRows(statement, values),
      transaction: (work) =>
        retryingLockWaits(budget, async () => {
          try {
            return await postgresTransaction(pool, mode, budget, work);
          } catch (error) {
            // Even if a concurrent transaction switched first: this one used a name before that.
            if (!isMissingStatement(error)) throw error;
            mode.prepared = false;
            return postgresTransaction(pool, mode, budget, work);
          }
        }),
    };
  };
}

/**
 * In process, a statement cannot be cancelled once it runs (it holds the event loop), nor does
 * the engine wait on locks (one session): the bound is that nothing of a request that gave up
 * starts, whether a statement or a transaction that waited for the engine meanwhile.
 */
function pgliteRows(
  client: PGlite | Transaction,
  budget: DatabaseBudget | undefined,
): Runner['rows'] {
  return async (statement, values) => {
    assertBudgetLeft(budget);
    const result = await client.query<unknown[]>(statement.sql, params(statement, values), {
      rowMode: 'array',
    });
    return result.rows;
  };
}

export function pgliteRunners(client: PGlite): RunnerFactory {
  return (budget) => ({
    rows: pgliteRows(client, budget),
    transaction: (work) =>
      client.transaction((tx) => {
        assertBudgetLeft(budget);
        return work({ rows: pgliteRows(tx, budget) });
      }),
  });
}

interface Runners {
  factory: RunnerFactory;
  /** For work that belongs to no request. */
  unbound: Transactor;
}

const runners = new WeakMap<Database, Runners>();

/** Called by openDatabase for the database it opens. */
export function attachRunners(db: Database, factory: RunnerFactory): void {
  runners.set(db, { factory, unbound: factory(undefined) });
}

function runnersOf(db: Database): Runners {
  const found = runners.get(db);
  if (!found) throw new Error('Statements run on a database opened by openDatabase');
  return found;
}

/** The runner of a database opened by openDatabase, for work that belongs to no request. */
export function runnerOf(db: Database): Transactor {
  return runnersOf(db).unbound;
}

/** The runner of one request's work: its statements are bounded by the request's budget. */
export function boundRunner(db: Database, budget: DatabaseBudget): Transactor {
  return runnersOf(db).factory(budget);
}

/** What a query runs on: the database, a runner of it, or a transaction of it. */
export type Queryable = Database | Runner;

export function runnerFor(on: Queryable): Runner {
  return 'rows' in on ? on : runnerOf(on);
}

/** Runs `work` in one transaction of the database, on `on`'s runner. */
export function transaction<T>(
  on: Database | Transactor,
  work: (tx: Runner) => Promise<T>,
): Promise<T> {
  return ('transaction' in on && 'rows' in on ? on : runnerOf(on)).transaction(work);
}
