import { describe, expect, it } from 'vitest';
import { lastEventId, prunedThrough } from '../../db/queries/events.js';
import { events } from '../../db/schema.js';
import { pruneExpiredEvents } from '../../server/domain/events/retention.js';
import { followEvents, refusedStream, type StreamedEvent } from '../helpers/events.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const server = useTestServer();
const db = () => server.database.handle.db;

async function createPets(count: number, label: string): Promise<{ id: number }[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const body = { name: `${label} ${i}`, categoryId: 1 };
      const response = await server.api<{ id: number }>('POST', '/v1/pets', { body });
      expect(response.status).toBe(201);
      return response.body;
    }),
  );
}

/** Three changes and their events, read by a stream that was open while they were made. */
async function threeEvents(): Promise<StreamedEvent[]> {
  const follower = await followEvents(server, TEST_KEY);
  try {
    for (const [pet] of [await createPets(1, 'Resume'), await createPets(1, 'Resume')]) {
      await server.api('PATCH', `/v1/pets/${pet?.id ?? 0}`, { body: { status: 'pending' } });
    }
    return await follower.take(4);
  } finally {
    follower.close();
  }
}

const ids = (list: StreamedEvent[]) => list.map((event) => event.id);

describe('GET /v1/events resumes after an id', () => {
  it('with Last-Event-ID: every later event once, in order, then live ones', async () => {
    const [first, ...later] = await threeEvents();
    const resumed = await followEvents(server, TEST_KEY, '', {
      headers: { 'last-event-id': first?.id ?? '' },
    });
    try {
      expect(ids(await resumed.take(3))).toEqual(ids(later));
      const [live] = await createPets(1, 'Live');
      const received = await resumed.until('pet.created', live?.id ?? 0);
      expect(received.slice(3).map((event) => event.type)).toEqual(['pet.created']);
    } finally {
      resumed.close();
    }
  });

  it('with ?after=, and the header wins when both are sent', async () => {
    const [first, second, ...rest] = await threeEvents();
    const byQuery = await followEvents(server, TEST_KEY, `?after=${first?.id ?? ''}`);
    const both = await followEvents(server, TEST_KEY, `?after=${first?.id ?? ''}`, {
      headers: { 'last-event-id': second?.id ?? '' },
    });
    try {
      expect(ids(await byQuery.take(3))).toEqual(ids([second, ...rest] as StreamedEvent[]));
      expect(ids(await both.take(2))).toEqual(ids(rest));
    } finally {
      byQuery.close();
      both.close();
    }
  });

  it('pages through a long backlog while changes keep coming, each event exactly once', async () => {
    const start = await lastEventId(db());
    // Through the API, as every change is made: the process's feed hears of each, so the
    // stream below catches up from the log a page at a time, at its own pace.
    const backlog = 1_260;
    const path = Array(20).fill('pets.create').join(',');
    const batch = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [i, { name: `Backlog ${i}`, categoryId: 5 }]),
    );
    for (let i = 0; i < backlog; i += 20) {
      expect((await server.trpc(`${path}?batch=1`, batch, 'mutation')).status).toBe(200);
    }
    const follower = await followEvents(server, TEST_KEY, `?after=${start}`);
    try {
      const live = await createPets(60, 'While catching up');
      const last = Math.max(...live.map((pet) => pet.id));
      const received = await follower.until('pet.created', last, 15_000);
      expect(received).toHaveLength(backlog + live.length);
      const numeric = received.map((event) => Number(event.id));
      expect(new Set(numeric).size).toBe(numeric.length);
      expect(numeric).toEqual([...numeric].sort((a, b) => a - b));
      expect(numeric[0]).toBe(start + 1);
    } finally {
      follower.close();
    }
  });

  it('keeps only the ?types= asked for, live and when resuming', async () => {
    const start = await lastEventId(db());
    const live = await followEvents(server, TEST_KEY, '?types=pet.updated,pet.deleted');
    try {
      const [pet] = await createPets(1, 'Typed');
      const petId = pet?.id ?? 0;
      await server.api('PATCH', `/v1/pets/${petId}`, { body: { name: 'Typed again' } });
      const deleted = await fetch(`${server.baseUrl}/pets/${petId}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${TEST_KEY}` },
      });
      expect(deleted.status).toBe(204);
      const types = (await live.until('pet.deleted', petId)).map((event) => event.type);
      expect(types).toEqual(['pet.updated', 'pet.deleted']);
      const resumed = await followEvents(server, TEST_KEY, `?after=${start}&types=pet.created`);
      const [created] = await resumed.take(1);
      resumed.close();
      expect([created?.type, created?.data.id]).toEqual(['pet.created', petId]);
    } finally {
      live.close();
    }
  });
});

describe('GET /v1/events refuses before any stream opens', () => {
  it.each([
    ['an unknown type', '?types=pet.created,pet.exploded', {}],
    ['an empty type list', '?types=', {}],
    ['a non-numeric after', '?after=abc', {}],
    ['a negative after', '?after=-1', {}],
    ['a non-numeric Last-Event-ID', '', { 'last-event-id': 'yesterday' }],
    ['an unknown parameter', '?since=5', {}],
    ['a repeated parameter', '?after=1&after=2', {}],
  ])('400 for %s', async (_case, query, headers: Record<string, string>) => {
    const refusal = await refusedStream(server, TEST_KEY, query, headers);
    expect([refusal.status, refusal.body.code]).toEqual([400, 'BAD_REQUEST']);
  });

  it('400 naming the bound for an id past 2^53 - 1, which a number would round', async () => {
    for (const [query, headers] of [
      ['?after=9999999999999999', {}],
      ['', { 'last-event-id': '9007199254740992' }],
    ] as const) {
      const refusal = await refusedStream(server, TEST_KEY, query, headers);
      expect([refusal.status, refusal.body.code]).toEqual([400, 'BAD_REQUEST']);
      expect(JSON.stringify(refusal.body)).toContain('at most 9007199254740991');
    }
  });

  it('400 for an id beyond the last event, which resuming would silently skip to', async () => {
    const head = await lastEventId(db());
    for (const [query, headers] of [
      ['', { 'last-event-id': String(head + 1) }],
      [`?after=${head + 1_000}`, {}],
    ] as const) {
      const refusal = await refusedStream(server, TEST_KEY, query, headers);
      expect([refusal.status, refusal.body.code]).toEqual([400, 'BAD_REQUEST']);
      expect(refusal.body.message).toContain(`the last event is ${head}`);
    }
    const atHead = await followEvents(server, TEST_KEY, `?after=${head}`);
    const [pet] = await createPets(1, 'After the head');
    const [next] = await atHead.take(1);
    atHead.close();
    expect(next?.data.id).toBe(pet?.id);
  });

  it('401 without a key or with an unknown one, as the JSON Error', async () => {
    const missing = await refusedStream(server, null);
    expect([missing.status, missing.body.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const unknown = await refusedStream(server, 'no-such-key-0123456789');
    expect(unknown.status).toBe(401);
  });

  it('410 GONE when resuming from an id the retention deleted; the last one deleted is fine', async () => {
    // Events written two hours ago, then pruned with a one-hour retention.
    await db()
      .insert(events)
      .values(
        Array.from({ length: 3 }, (_, i) => ({
          type: 'pet.deleted' as const,
          data: { id: i + 1 },
          occurredAt: new Date(Date.now() - 7_200_000),
        })),
      );
    expect((await pruneExpiredEvents(db(), 3_600)).deleted).toBe(3);
    const pruned = await prunedThrough(db());
    for (const [query, headers] of [
      ['', { 'last-event-id': String(pruned - 1) }],
      [`?after=${pruned - 2}`, {}],
      ['?after=0', {}],
    ] as const) {
      const refusal = await refusedStream(server, TEST_KEY, query, headers);
      expect([refusal.status, refusal.body.code]).toEqual([410, 'GONE']);
      expect(refusal.body.message).toMatch(/no longer kept/);
    }
    const fromPruned = await followEvents(server, TEST_KEY, `?after=${pruned}`);
    const [pet] = await createPets(1, 'After pruning');
    const [next] = await fromPruned.take(1);
    fromPruned.close();
    expect(next?.data.id).toBe(pet?.id);
  });
});
