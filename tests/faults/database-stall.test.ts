import { afterEach, beforeEach, expect, it, vi, type TestContext } from 'vitest';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { freePort } from '../helpers/ports.js';
import { describeOnPostgres } from '../helpers/database.js';
import { openStream, type SseStream } from '../helpers/sse.js';
import { createProxiedDatabase, type ProxiedDatabase } from '../helpers/proxied-database.js';
import { timedRequest } from '../helpers/timed-request.js';

/** The contract's bounds (5 s), plus room for a loaded two-core machine. */
const WITHIN_MS = 5_000 + 1_500;
const KEY = 'database-stall-key-0123456789';
/** Small, so that a slot a refused stream kept would show as a 429 after the stall. */
const STREAMS_PER_KEY = 4;
const auth = { authorization: `Bearer ${KEY}` };

const createdPets = (stream: SseStream) =>
  stream.frames
    .filter((frame) => frame.event === 'pet.created')
    .map((frame) => (JSON.parse(frame.data) as { data: { id: number } }).data.id);

async function createPet(server: ChildServer, name: string) {
  const answer = await timedRequest(server.origin, '/v1/pets', {
    method: 'POST',
    key: KEY,
    body: { name, categoryId: 1 },
  });
  const id = answer.status === 201 ? (JSON.parse(answer.body) as { id: number }).id : 0;
  return { status: answer.status, id, ms: answer.ms };
}

/** The process's count of open event streams, from its metrics listener. */
async function streamsOpen(server: ChildServer): Promise<number> {
  const line = await server.waitForLog((entry) => entry.msg === 'metrics', 10_000);
  const text = await (await fetch(String(line.address))).text();
  return Number(/^petstore_event_streams_open (\d+)$/m.exec(text)?.[1]);
}

async function openEvents(server: ChildServer) {
  const started = performance.now();
  const stream = await openStream(server.origin, '/v1/events', {
    headers: auth,
    timeoutMs: 2 * WITHIN_MS,
  });
  return { stream, ms: performance.now() - started };
}

/**
 * PostgreSQL stalls (a proxy between the service and a database of its own holds every byte,
 * closing nothing, as a network that drops packets does): a stream asked for meanwhile is 503
 * within 5 s and keeps no slot of its key, a stream open through the stall receives the
 * changes after it, and new streams and writes work within 5 s of the database answering.
 */
describeOnPostgres('PostgreSQL stalled with streams open', () => {
  let database: ProxiedDatabase;

  beforeEach(async () => {
    database = await createProxiedDatabase();
  });
  afterEach(() => database.destroy());

  it('refuses new streams with 503, keeps open ones, and recovers', async ({
    annotate,
  }: TestContext) => {
    const server = await spawnServer({
      DATABASE_URL: database.url,
      API_KEYS: KEY,
      RATE_LIMIT: 'off',
      EVENT_STREAMS_PER_KEY: String(STREAMS_PER_KEY),
      METRICS_PORT: String(await freePort()),
    });
    const open: SseStream[] = [];
    try {
      const { stream: through } = await openEvents(server);
      open.push(through);
      expect(through.status).toBe(200);
      const first = await createPet(server, 'first');
      expect(first.status).toBe(201);
      await vi.waitFor(() => {
        expect(createdPets(through)).toContain(first.id);
      }, WITHIN_MS);

      database.proxy.stall();
      const refused = [];
      for (let i = 0; i < STREAMS_PER_KEY; i++) {
        const { stream, ms } = await openEvents(server);
        open.push(stream);
        refused.push({ status: stream.status, ms });
      }
      const write = await createPet(server, 'stalled');
      expect(refused.map((answer) => answer.status)).toEqual(refused.map(() => 503));
      expect(Math.max(...refused.map((answer) => answer.ms))).toBeLessThan(WITHIN_MS);
      expect(write).toMatchObject({ status: 503 });
      expect(write.ms).toBeLessThan(WITHIN_MS);

      await database.proxy.restore();
      const restored = performance.now();
      let fresh: SseStream | undefined;
      await vi.waitFor(async () => {
        const { stream } = await openEvents(server);
        open.push(stream);
        expect(stream.status).toBe(200);
        fresh = stream;
      }, WITHIN_MS);
      let marker = 0;
      await vi.waitFor(async () => {
        const pet = await createPet(server, 'marker');
        expect(pet.status).toBe(201);
        marker = pet.id;
      }, WITHIN_MS);
      for (const stream of [through, fresh]) {
        await vi.waitFor(() => {
          expect(createdPets(stream as SseStream)).toContain(marker);
        }, WITHIN_MS);
      }
      const recovered = performance.now() - restored;
      expect(recovered).toBeLessThan(WITHIN_MS);

      // The streams refused during the stall hold no slot: the key opens up to its limit.
      const more = await Promise.all(
        Array.from({ length: STREAMS_PER_KEY - 2 }, () => openEvents(server)),
      );
      open.push(...more.map(({ stream }) => stream));
      expect(more.map(({ stream }) => stream.status)).toEqual(more.map(() => 200));
      // Nor does the process keep them open, unread, once the database let them through.
      expect(await streamsOpen(server)).toBe(STREAMS_PER_KEY);
      expect(server.output()).not.toMatch(/TypeError|uncaught/i);
      await annotate(
        `stall: new streams 503 in ≤ ${Math.round(Math.max(...refused.map((a) => a.ms)))} ms, a write 503 in ${Math.round(write.ms)} ms; a new stream, a write and its event on both streams ${Math.round(recovered)} ms after the database answered again`,
      );
    } finally {
      for (const stream of open) stream.close();
      await server.stop();
    }
  }, 120_000);
});
