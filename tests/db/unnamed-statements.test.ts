import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnPostgres, postgresTarget } from '../helpers/database.js';

/**
 * Behind a pooler every statement is unnamed. The patched driver sends one whose values
 * serialize without the server's types (text, numbers, dates, booleans, bytes, null)
 * with its Bind, in one round trip, and describes first only one with an array or an object
 * among its values (patches/README.md). Both must arrive as the server's types say.
 */
describeOnPostgres('an unnamed statement with parameters', () => {
  let client: postgres.Sql;
  beforeAll(() => {
    client = postgres(postgresTarget().url, { max: 1, onnotice: () => undefined });
  });
  afterAll(() => client.end());

  const unnamed = { prepare: false, simple: false } as const;

  it('binds scalar values as the server reads them', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const [row] = await client
      .unsafe(
        'select $1::int as n, $2::text as t, $3::timestamptz as at, $4::boolean as b, $5::bigint as big, $6::int as nothing, $7::bytea as bytes, $8::numeric as x',
        [42, "it's", at, true, '9007199254740993', null, Buffer.from([1, 2]), '1.50'],
        unnamed,
      )
      .values();
    expect(row).toEqual([
      42,
      "it's",
      at,
      true,
      '9007199254740993',
      null,
      Buffer.from([1, 2]),
      '1.50',
    ]);
  });

  it('still describes a statement whose value is an array first, and binds it as one', async () => {
    const [row] = await client.unsafe('select $1::int[] as ids', [[1, 2, 3]], unnamed).values();
    expect(row).toEqual([[1, 2, 3]]);
  });
});
