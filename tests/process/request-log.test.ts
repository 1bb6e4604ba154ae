import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createChildDatabase, type ChildDatabase } from '../helpers/child-database.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { rawRequest } from '../helpers/http.js';

const KEY = 'request-log-test-key-0123456789';
const auth = { authorization: `Bearer ${KEY}` };

let database: ChildDatabase;
/**
 * One service for every test that only reads its log: each start costs seconds of CPU (the
 * embedded database, the TypeScript loader), which is what this file waited for under load.
 */
let server: ChildServer;

beforeAll(async () => {
  database = await createChildDatabase();
  server = await spawnServer({ ...database.env, API_KEYS: KEY });
});
afterAll(async () => {
  await server.stop();
  await database.destroy();
});

/** The service buffers log lines into 4 KiB writes; these are the promises that make up for it. */
describe('request log lines on stdout', () => {
  it('reach stdout within a second under light traffic', async () => {
    const headers = { ...auth, 'x-request-id': 'light-traffic' };
    expect((await rawRequest(server.origin, '/v1/pets?limit=1', { headers })).status).toBe(200);
    // One short line is far below the buffer's size: only the timed flush writes it.
    const line = await server.waitForLog((logged) => logged.reqId === 'light-traffic', 1_000);
    expect(line).toMatchObject({ route: '/pets', status: 200 });
  });

  it('are all written when the process exits, also those still in the buffer', async () => {
    // A database of its own: the embedded one serves one process at a time.
    const own = await createChildDatabase();
    onTestFinished(() => own.destroy());
    const exiting = await spawnServer({ ...own.env, API_KEYS: KEY });
    const headers = { ...auth, 'x-request-id': 'just-before-exit' };
    expect((await rawRequest(exiting.origin, '/v1/pets?limit=1', { headers })).status).toBe(200);
    // At once, before the timed flush: the request's line and shutdown's own are still buffered.
    exiting.child.kill('SIGTERM');
    expect((await exiting.exited).code).toBe(0);
    // 'exit' can come before the last of stdout has been read.
    const { stdout } = exiting.child;
    if (stdout && !stdout.readableEnded) await once(stdout, 'end');
    expect(exiting.logs.some((line) => line.reqId === 'just-before-exit')).toBe(true);
    expect(exiting.logs.some((line) => line.msg === 'stopped')).toBe(true);
  });
});

/** W3C Trace Context: https://www.w3.org/TR/trace-context/#traceparent-header */
describe('trace context in request log lines', () => {
  const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
  const CALLER_SPAN = '00f067aa0ba902b7';

  async function loggedFor(traceparent: string | undefined, requestId: string) {
    const headers: Record<string, string> = { ...auth, 'x-request-id': requestId };
    if (traceparent !== undefined) headers.traceparent = traceparent;
    expect((await rawRequest(server.origin, '/v1/pets?limit=1', { headers })).status).toBe(200);
    return server.waitForLog((logged) => logged.reqId === requestId, 5_000);
  }

  it("keeps the caller's trace id and opens a span of its own", async () => {
    const line = await loggedFor(`00-${TRACE_ID}-${CALLER_SPAN}-01`, 'traced');
    expect(line.trace_id).toBe(TRACE_ID);
    expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(line.span_id).not.toBe(CALLER_SPAN);
  });

  it('starts a new trace when none is sent, or an invalid one', async () => {
    const invalid = [
      undefined,
      `00-${'0'.repeat(32)}-${CALLER_SPAN}-01`, // an all-zero trace id
      `ff-${TRACE_ID}-${CALLER_SPAN}-01`, // version ff is forbidden
      `00-${TRACE_ID.toUpperCase()}-${CALLER_SPAN}-01`, // ids are lowercase
      `00-${TRACE_ID}-${CALLER_SPAN}-01-extra`, // version 00 has exactly four fields
    ];
    const ids = new Set<unknown>();
    for (const [i, traceparent] of invalid.entries()) {
      const line = await loggedFor(traceparent, `untraced-${i}`);
      expect(line.trace_id).toMatch(/^[0-9a-f]{32}$/);
      expect(line.trace_id).not.toBe(TRACE_ID);
      ids.add(line.trace_id);
    }
    expect(ids.size).toBe(invalid.length);
  });

  it('keeps the trace of a future version with more fields', async () => {
    const line = await loggedFor(`01-${TRACE_ID}-${CALLER_SPAN}-01-what-comes-next`, 'future');
    expect(line.trace_id).toBe(TRACE_ID);
  });
});
