import { asc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PetStatus } from '../../db/queries/pets.js';
import { pets } from '../../db/schema.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { insertManyPets, newPet } from '../helpers/factories.js';
import { nextLink, walkLinks } from '../helpers/pages.js';
import { useTestServer } from '../helpers/server.js';

const PET_COUNT = 1_200;
/** Rare on purpose: the limit=1 walk goes through this status only, to stay fast. */
const statusOf = (index: number): PetStatus =>
  index % 40 === 0 ? 'pending' : index % 3 === 0 ? 'sold' : 'available';

const server = useTestServer();

beforeAll(async () => {
  await insertManyPets(server.database.handle.db, PET_COUNT, statusOf);
});

async function idsInDatabase(status?: PetStatus): Promise<number[]> {
  const rows = await server.database.handle.db
    .select({ id: pets.id })
    .from(pets)
    .where(status ? eq(pets.status, status) : undefined)
    .orderBy(asc(pets.id));
  return rows.map((row) => row.id);
}

/** The `next` link, checked to be exactly the documented shape. */
function expectNext(next: URL | undefined, limit: number, status?: PetStatus): URL {
  expect(next).toBeDefined();
  expect(`${next?.origin}${next?.pathname}`).toBe(`${server.baseUrl}/pets`);
  const filter = status ? `&status=${status}` : '';
  expect(next?.search).toMatch(new RegExp(`^\\?limit=${limit}${filter}&cursor=[A-Za-z0-9_.-]+$`));
  return next ?? new URL(server.origin);
}

/** Follows `next` until it is absent; `between` runs between pages (to create pets). */
async function walk(
  limit: number,
  status?: PetStatus,
  between: () => Promise<void> = () => Promise.resolve(),
): Promise<{ ids: number[]; pages: number }> {
  const first = `/v1/pets?limit=${limit}${status ? `&status=${status}` : ''}`;
  const { items, pages } = await walkLinks<Pet>(server.api, first, async (page, next) => {
    // Only the last page may be short, and it carries no next link.
    if (next) expectNext(next, limit, status);
    expect(page.body.length).toBe(next ? limit : page.body.length);
    expect(page.body.length).toBeLessThanOrEqual(limit);
    if (status) expect(page.body.every((pet) => pet.status === status)).toBe(true);
    if (next) await between();
  });
  return { ids: items.map((pet) => pet.id), pages };
}

describe('GET /v1/pets pages', () => {
  it.each([
    [100, undefined],
    [7, undefined],
    [100, 'sold'],
    [7, 'available'],
    [1, 'pending'],
  ] as const)(
    'at limit %i with status %s visits every pet once, in id order',
    async (limit, status) => {
      const expected = await idsInDatabase(status);
      expect(expected.length).toBeGreaterThan(status === 'pending' ? 20 : 300);
      const { ids, pages } = await walk(limit, status);
      expect(ids).toEqual(expected);
      expect(pages).toBe(Math.max(1, Math.ceil(expected.length / limit)));
    },
  );

  it('ends without a next link when the last page is exactly full', async () => {
    const total = (await idsInDatabase('pending')).length;
    const page = await server.api<Pet[]>('GET', `/v1/pets?status=pending&limit=${total}`);
    expect(page.body).toHaveLength(total);
    expect(page.headers.get('link')).toBeNull();
  });

  it('visits pets created during the walk once, and skips or repeats none', async () => {
    const before = await idsInDatabase();
    const created: Pet[] = [];
    const { ids } = await walk(100, undefined, async () => {
      for (const status of ['sold', 'pending'] as const) {
        const response = await server.api<Pet>('POST', '/v1/pets', { body: newPet({ status }) });
        created.push(response.body);
      }
    });
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...before, ...created.map((pet) => pet.id)].sort((a, b) => a - b));
  });

  it('keeps a filtered walk consistent while pets of every status are created', async () => {
    const before = await idsInDatabase('pending');
    const created: Pet[] = [];
    const { ids } = await walk(7, 'pending', async () => {
      const status = created.length % 2 === 0 ? 'pending' : 'available';
      const response = await server.api<Pet>('POST', '/v1/pets', { body: newPet({ status }) });
      created.push(response.body);
    });
    const createdPending = created.filter((pet) => pet.status === 'pending').map((pet) => pet.id);
    expect(ids).toEqual([...before, ...createdPending].sort((a, b) => a - b));
  });
});

describe('GET /v1/pets cursors', () => {
  async function cursorFor(status?: PetStatus): Promise<string> {
    const response = await server.api(
      'GET',
      `/v1/pets?limit=2${status ? `&status=${status}` : ''}`,
    );
    return expectNext(nextLink(response.headers), 2, status).searchParams.get('cursor') ?? '';
  }

  const flip = (text: string, at: number) =>
    `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;

  it('answers a cursor used with another status filter with 400 naming cursor', async () => {
    const cursor = await cursorFor('sold');
    for (const query of [`status=available&cursor=${cursor}`, `cursor=${cursor}`]) {
      const response = await server.api<{ issues: { path: string }[]; message: string }>(
        'GET',
        `/v1/pets?${query}`,
      );
      expect(response.status).toBe(400);
      expect(response.body.issues.map((issue) => issue.path)).toEqual(['cursor']);
      expect(response.body.message).toMatch(/issued for status=sold/);
    }
  });

  it('answers an unfiltered cursor used with a status filter with 400', async () => {
    const cursor = await cursorFor();
    const response = await server.api('GET', `/v1/pets?status=sold&cursor=${cursor}`);
    expect(response.status).toBe(400);
  });

  it('answers altered and made-up cursors with 400', async () => {
    const cursor = await cursorFor('sold');
    const [payload = '', mac = ''] = cursor.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ a: 0, s: 'sold' })).toString('base64url');
    for (const bad of [
      flip(cursor, 3),
      flip(cursor, cursor.length - 2),
      `${forgedPayload}.${mac}`,
      payload,
      `${cursor}.x`,
      'abc',
      '%00',
      'x'.repeat(300),
    ]) {
      const response = await server.api(
        'GET',
        `/v1/pets?status=sold&cursor=${encodeURIComponent(bad)}`,
      );
      expect(response.status, bad).toBe(400);
    }
  });

  it('accepts a changed limit with the same cursor', async () => {
    const cursor = await cursorFor();
    const response = await server.api<Pet[]>('GET', `/v1/pets?limit=5&cursor=${cursor}`);
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(5);
    expect(response.body[0]?.id).toBe((await idsInDatabase())[2]);
  });
});
