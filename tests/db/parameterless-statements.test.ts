import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresRunners, statementOf } from '../../db/runner.js';
import { describeOnPostgres, postgresTarget } from '../helpers/database.js';

/**
 * postgres.js sends a query without parameters by the simple protocol unless told otherwise:
 * its whole text every time, parsed, planned and described by the server every time. The
 * inventory's sum is such a statement; on every request it cost three times the socket writes
 * of a get (docs/performance.md).
 */
describeOnPostgres('a statement without parameters', () => {
  let client: postgres.Sql;
  beforeAll(() => {
    // One connection, so the server's list of prepared statements below is the runner's.
    client = postgres(postgresTarget().url, { max: 1, onnotice: () => undefined });
  });
  afterAll(() => client.end());

  it('is prepared on the server like any other, when statements are prepared', async () => {
    const runner = postgresRunners({ pool: client, reads: client }, { prepared: true })(undefined);
    const statement = statementOf(sql`select count(*) from pg_catalog.pg_class`, {
      quickRead: true,
    });
    const [row] = await runner.rows(statement);
    expect(Number(row?.[0])).toBeGreaterThan(0);
    const prepared = await client<{ statement: string }[]>`
      select statement from pg_prepared_statements`;
    expect(prepared.map((entry) => entry.statement)).toContain(statement.sql);
  });
});
