import { afterEach, beforeEach, expect, it, vi, type TestContext } from 'vitest';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { describeOnPostgres } from '../helpers/database.js';
import { openStream, type SseStream } from '../helpers/sse.js';
import { createProxiedDatabase, type ProxiedDatabase } from '../helpers/proxied-database.js';
import { timedRequest } from '../helpers/timed-request.js';

/** The contract's bounds (5 s), plus room for a loaded two-core machine. */
const WITHIN_MS = 5_000 + 1_500;
const KEY = 'database-cut-key-0123456789';
const CLIENTS = 6;
const STREAMS = 4;
const auth = { authorization: `Bearer ${KEY}` };
const post = { method: 'POST', key: KEY };

interface Answer {
  status: number;
  ms: number;
  afterCut: boolean;
}

const eventIds = (stream: SseStream) => stream.frames.map((frame) => Number(frame.id));
const createdPets = (stream: SseStream) =>
  stream.frames
    .filter((frame) => frame.event === 'pet.created')
    .map((frame) => (JSON.parse(frame.data) as { data: { id: number } }).data.id);

/** Opens `/v1/events` (resuming after `lastId`), again until it is 200. */
async function openEvents(server: ChildServer, lastId?: number) {
  const headers = { ...auth, ...(lastId === undefined ? {} : { 'last-event-id': String(lastId) }) };
  let stream = await openStream(server.origin, '/v1/events', { headers });
  await vi.waitFor(async () => {
    if (stream.status !== 200) stream = await openStream(server.origin, '/v1/events', { headers });
    expect(stream.status).toBe(200);
  }, WITHIN_MS);
  return stream;
}

/** Waits for the creation of pet `petId` on `stream`, closes it, and returns its event ids. */
async function readUntil(stream: SseStream, petId: number) {
  await vi.waitFor(() => {
    expect(createdPets(stream), `got ${eventIds(stream).join()}`).toContain(petId);
  }, WITHIN_MS);
  stream.close();
  return eventIds(stream);
}

/**
 * The connections to PostgreSQL cut (a proxy between the service and a database of its own)
 * while event streams are open and orders are in flight: the process stays up, every answer
 * is a success or a 503 within 5 s, writes and new streams work within 5 s of the database
 * returning, and a stream resumed with Last-Event-ID loses and repeats nothing.
 */
describeOnPostgres('PostgreSQL connections cut under load', () => {
  let database: ProxiedDatabase;

  beforeEach(async () => {
    database = await createProxiedDatabase();
  });
  afterEach(() => database.destroy());

  const cutUnderLoad = async (workers: number, { annotate }: TestContext) => {
    const server = await spawnServer(
      { DATABASE_URL: database.url, API_KEYS: KEY, WORKERS: String(workers), RATE_LIMIT: 'off' },
      { listeners: workers },
    );
    let stop = false;
    let load: Promise<unknown> = Promise.resolve();
    try {
      const streams = await Promise.all(
        Array.from({ length: STREAMS }, () =>
          openStream(server.origin, '/v1/events', { headers: auth }),
        ),
      );
      expect(streams.map((stream) => stream.status)).toEqual(streams.map(() => 200));
      const first = await timedRequest(server.origin, '/v1/pets', {
        ...post,
        body: { name: 'first', categoryId: 1 },
      });
      expect(first.status).toBe(201);
      await Promise.all(streams.map((stream) => stream.waitForFrames(1)));

      // Clients creating a pet and ordering it, until stopped; the cut comes once they run.
      const answers: Answer[] = [];
      let cut = false;
      let running: () => void = () => undefined;
      const started = new Promise<void>((resolve) => (running = resolve));
      const record = <T extends { status: number; ms: number }>(answer: T) => {
        answers.push({ status: answer.status, ms: answer.ms, afterCut: cut });
        if (answers.length === 2 * CLIENTS) running();
        return answer;
      };
      load = Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
          for (let i = 0; !stop; i++) {
            const pet = record(
              await timedRequest(server.origin, '/v1/pets', {
                ...post,
                body: { name: `cut ${client}.${i}`, categoryId: 1 },
              }),
            );
            if (pet.status !== 201) continue;
            const { id } = JSON.parse(pet.body) as { id: number };
            record(
              await timedRequest(server.origin, '/v1/store/orders', {
                ...post,
                body: { petId: id },
              }),
            );
          }
        }),
      );
      await started;
      await database.proxy.cut();
      cut = true;
      const duringCut = () => answers.filter((answer) => answer.afterCut);
      await vi.waitFor(() => {
        const statuses = duringCut().map((answer) => answer.status);
        // The statuses seen, so that a run that gets too few 503s says what it got instead.
        expect(
          statuses.filter((status) => status === 503).length,
          `answers during the cut: ${statuses.join(', ')}`,
        ).toBeGreaterThan(2 * CLIENTS);
      }, 30_000);
      expect(server.child.exitCode).toBeNull();

      await database.proxy.restore();
      const restored = performance.now();
      // A stream asked for now is live, and a write goes through and reaches it.
      const fresh = await openEvents(server);
      let marker = 0;
      await vi.waitFor(async () => {
        const pet = await timedRequest(server.origin, '/v1/pets', {
          ...post,
          body: { name: 'marker', categoryId: 1 },
        });
        expect(pet.status).toBe(201);
        marker = (JSON.parse(pet.body) as { id: number }).id;
      }, WITHIN_MS);
      await readUntil(fresh, marker);
      const recovered = performance.now() - restored;
      stop = true;
      await load;

      expect(server.logs.filter((line) => line.msg === 'worker died; replacing it')).toEqual([]);
      expect(answers.filter((answer) => ![201, 503].includes(answer.status))).toEqual([]);
      expect(Math.max(...duringCut().map((answer) => answer.ms))).toBeLessThan(WITHIN_MS);
      expect(recovered).toBeLessThan(WITHIN_MS);
      expect(server.output()).not.toMatch(/TypeError|uncaught/i);

      // The streams open through the cut end; one more change comes after them; each resumes.
      const seenBefore = streams.map((stream) => eventIds(stream));
      for (const stream of streams) stream.close();
      const last = await timedRequest(server.origin, '/v1/pets', {
        ...post,
        body: { name: 'last', categoryId: 1 },
      });
      expect(last.status).toBe(201);
      const lastPet = (JSON.parse(last.body) as { id: number }).id;
      // The log from the first event: what happened, every event once, in order.
      const firstId = seenBefore[0]?.[0] ?? 0;
      const log = [firstId, ...(await readUntil(await openEvents(server, firstId), lastPet))];
      for (const before of seenBefore) {
        const resumed = await readUntil(await openEvents(server, before.at(-1)), lastPet);
        expect([...before, ...resumed]).toEqual(log.filter((id) => id >= (before[0] ?? 0)));
      }
      await annotate(
        `${duringCut().length} answers during the cut, slowest ${Math.round(Math.max(...duringCut().map((a) => a.ms)))} ms; writes and a new stream ${Math.round(recovered)} ms after the database returned`,
      );
    } finally {
      stop = true;
      await load;
      await server.stop();
    }
  };

  it('keeps the process, answers 503, and recovers', async (context) => {
    await cutUnderLoad(1, context);
  }, 120_000);

  it('keeps every worker with WORKERS=2', async (context) => {
    await cutUnderLoad(2, context);
  }, 120_000);
});
