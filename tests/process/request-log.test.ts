import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChildDatabase, type ChildDatabase } from '../helpers/child-database.js';
import { spawnServer } from '../helpers/child-server.js';
import { rawRequest } from '../helpers/http.js';

const KEY = 'request-log-test-key-0123456789';
const auth = { authorization: `Bearer ${KEY}` };

let database: ChildDatabase;

beforeAll(async () => {
  database = await createChildDatabase();
});
afterAll(() => database.destroy());

/** The service buffers log lines into 4 KiB writes; these are the promises that make up for it. */
describe('request log lines on stdout', () => {
  it('reach stdout within a second under light traffic', async () => {
    const server = await spawnServer({ ...database.env, API_KEYS: KEY });
    try {
      const headers = { ...auth, 'x-request-id': 'light-traffic' };
      expect((await rawRequest(server.origin, '/v1/pets?limit=1', { headers })).status).toBe(200);
      // One short line is far below the buffer's size: only the timed flush writes it.
      const line = await server.waitForLog((logged) => logged.reqId === 'light-traffic', 1_000);
      expect(line).toMatchObject({ route: '/pets', status: 200 });
    } finally {
      await server.stop();
    }
  });

  it('are all written when the process exits, also those still in the buffer', async () => {
    const server = await spawnServer({ ...database.env, API_KEYS: KEY });
    const headers = { ...auth, 'x-request-id': 'just-before-exit' };
    expect((await rawRequest(server.origin, '/v1/pets?limit=1', { headers })).status).toBe(200);
    // At once, before the timed flush: the request's line and shutdown's own are still buffered.
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    // 'exit' can come before the last of stdout has been read.
    const { stdout } = server.child;
    if (stdout && !stdout.readableEnded) await once(stdout, 'end');
    expect(server.logs.some((line) => line.reqId === 'just-before-exit')).toBe(true);
    expect(server.logs.some((line) => line.msg === 'stopped')).toBe(true);
  });
});
