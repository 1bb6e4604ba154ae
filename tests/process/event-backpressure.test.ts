import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChildDatabase, type ChildDatabase } from '../helpers/child-database.js';
import { spawnServer } from '../helpers/child-server.js';
import { loadConformance } from '../helpers/conformance.js';
import { testDatabaseTarget } from '../helpers/database.js';
import { followEvents } from '../helpers/events.js';
import { runBounded } from '../helpers/load.js';

const KEY = 'backpressure-test-key-0123456789';
const target = testDatabaseTarget();
/** Seconds a stream may stay behind before the cut (EVENT_STREAM_MAX_LAG). */
const MAX_LAG_SECONDS = 2;
/**
 * About 9 MB: usually more than the kernel's socket buffers take for a client that does not
 * read (some MB on loopback; the flood is slower on PGlite, and there they have taken it all),
 * then the 1,000 events queued. Names of 240 four-byte characters make each event about 1 KiB.
 */
const EVENTS = 8_000;
const LONG_NAME = 'Flood '.concat('\u{1F415}'.repeat(240));
const BATCH = 20;
/** REST streams that stop reading; one tRPC subscription stops reading besides. */
const STALLED = 4;

interface StalledStream {
  /** Starts reading again and resolves once the connection ended, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<{ ended: boolean; ids: number[] }>;
  socket: Socket;
}

/** Opens a stream (REST or tRPC) on a raw socket, checks it is one, then stops reading. */
function stalledStream(origin: string, path: string): Promise<StalledStream> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let text = '';
    let ended = false;
    socket.setEncoding('utf8');
    socket.once('error', reject);
    socket.on('close', () => (ended = true));
    socket.once('connect', () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
      );
    });
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.once('data', (chunk: string) => {
      // Never reads again until drain(): the server's writes back up.
      socket.pause();
      if (!chunk.startsWith('HTTP/1.1 200')) reject(new Error(`not a stream: ${chunk}`));
      resolve({
        socket,
        drain: (timeoutMs) =>
          new Promise((done) => {
            const finish = () => {
              clearTimeout(timer);
              done({ ended, ids: [...text.matchAll(/^id: ?(\d+)$/gm)].map((m) => Number(m[1])) });
            };
            const timer = setTimeout(finish, timeoutMs);
            socket.once('close', finish);
            socket.on('error', () => undefined);
            socket.resume();
          }),
      });
    });
  });
}

/** Creates `count` pets in tRPC batches of 20 (each batch written in one statement). */
async function createMany(origin: string, count: number): Promise<number> {
  const path = Array(BATCH).fill('pets.create').join(',');
  const input = JSON.stringify(
    Object.fromEntries(
      Array.from({ length: BATCH }, (_, i) => [i, { name: LONG_NAME, categoryId: 1 }]),
    ),
  );
  const batches = await runBounded(count / BATCH, 8, async () => {
    const response = await fetch(`${origin}/trpc/${path}?batch=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: input,
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(200);
    const answers = (await response.json()) as { result: { data: { id: number } } }[];
    return Math.max(...answers.map((answer) => answer.result.data.id));
  });
  return Math.max(...batches);
}

async function createOne(origin: string): Promise<number> {
  const response = await fetch(`${origin}/v1/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'After the flood', categoryId: 1 }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

let database: ChildDatabase;

beforeAll(async () => {
  database = await createChildDatabase();
});
afterAll(() => database.destroy());

describe(`a client that stops reading (${target.kind})`, () => {
  it('loses nothing and holds no unbounded memory: cut off when it stays behind, other streams keep up', async () => {
    const server = await spawnServer({
      ...database.env,
      API_KEYS: KEY,
      RATE_LIMIT: 'off',
      EVENT_STREAM_MAX_LAG: String(MAX_LAG_SECONDS),
    });
    try {
      const conformance = await loadConformance(server.origin);
      const reader = await followEvents({ origin: server.origin, conformance }, KEY);
      // REST streams, and one tRPC subscription: its SSE answer is pulled as the socket drains.
      const stalled = await Promise.all([
        ...Array.from({ length: STALLED }, () => stalledStream(server.origin, '/v1/events')),
        stalledStream(server.origin, '/trpc/events.onChange'),
      ]);
      const rssBefore = server.rssMiB();
      const lastId = await createMany(server.origin, EVENTS);
      const flooded = await reader.until('pet.created', lastId, 60_000);
      const rssAfter = server.rssMiB();
      expect(flooded).toHaveLength(EVENTS);

      const drained = await Promise.all(stalled.map((stream) => stream.drain(10_000)));
      console.info(
        `${target.kind}: ${EVENTS} events; stalled clients got ${drained.map((d) => `${d.ids.length}${d.ended ? ' (cut)' : ''}`).join(', ')}; server RSS ${rssBefore} -> ${rssAfter} MiB`,
      );
      // Cut off once it stayed behind too long, or (when the kernel's buffers took the whole
      // flood) served to the end once it read again: either way nothing lost or repeated. That a
      // consumer behind too long is cut off is shown exactly in tests/events/lagging-stream.test.ts.
      for (const { ended, ids } of drained) {
        expect(ids, 'ids ascend, each once').toEqual([...new Set(ids)].sort((a, b) => a - b));
        expect((ids.at(-1) ?? 0) - (ids[0] ?? 1) + 1, 'no gap').toBe(ids.length);
        if (!ended) expect(ids).toHaveLength(EVENTS);
      }
      // A sanity bound against gross growth only; tests/events/lagging-stream.test.ts bounds
      // the queue exactly. Resident memory, because the heap in use counts garbage too. V8 on
      // Node 24 grows and keeps a larger young generation under this flood: +99 to +156 MiB of
      // RSS in five runs, against +30 on Node 20.
      expect(rssAfter - rssBefore).toBeLessThan(192);

      // The reader is still served, live.
      await reader.until('pet.created', await createOne(server.origin), 5_000);
      reader.close();
    } finally {
      await server.stop();
    }
    expect((await server.exited).code).toBe(0);
  }, 120_000);
});
