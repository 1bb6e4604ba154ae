import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const server = useTestServer();

beforeAll(async () => {
  // A real fault, not a mock: the table no longer has the column every query selects.
  await server.database.handle.db.execute(sql`alter table pets rename column name to pet_name`);
});

const LEAKS = /select|pet_name|column|\.ts|\/work|node_modules|at .*:\d+|stack/i;

describe('an unexpected failure inside a procedure', () => {
  it('answers REST with a clean 500 and logs the detail once, under the request id', async () => {
    const response = await server.api<{ message: string }>('GET', '/v1/pets', {
      headers: { 'x-request-id': 'fault-1' },
    });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      code: 'INTERNAL_SERVER_ERROR',
      message: 'Internal server error',
      status: 500,
    });
    expect(JSON.stringify(response.body)).not.toMatch(LEAKS);
    const errors = server.logs.filter((line) => line.level === 50 && line.reqId === 'fault-1');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.err).toMatchObject({ code: '42703', query: 'select pets' });
    expect((errors[0]?.err as { stack?: string }).stack).toMatch(/^\s+at /);
  });

  it.each([
    ['REST', '/v1/pets'],
    ['tRPC', '/trpc/pets.create'],
  ])(
    'logs a failed %s create by kind, code and statement, never its values or SQL',
    async (_, path) => {
      const secret = `Secret Rex ${path.length}-7f3a`;
      const requestId = `fault-create-${path.length}`;
      const response = await server.api('POST', path, {
        body: { name: secret, categoryId: 424242 },
        headers: { 'x-request-id': requestId },
      });
      expect(response.status).toBe(500);
      const everything = JSON.stringify(server.logs);
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain('424242');
      expect(everything).not.toMatch(/params|insert into|pet_name|Failed query/i);
      const errors = server.logs.filter((line) => line.level === 50 && line.reqId === requestId);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        msg: 'request failed: internal error',
        err: { kind: expect.stringMatching(/Error/) as string, code: '42703' },
      });
      expect((errors[0]?.err as { query?: string }).query).toMatch(/^(insert|with) /);
    },
  );

  it('answers tRPC with a clean 500 envelope', async () => {
    const response = await fetch(
      `${server.origin}/trpc/pets.list?input=${encodeURIComponent('{}')}`,
      {
        headers: { authorization: `Bearer ${TEST_KEY}` },
      },
    );
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toMatch(LEAKS);
    expect(JSON.parse(text)).toMatchObject({
      error: {
        message: 'Internal server error',
        data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500 },
      },
    });
  });
});
