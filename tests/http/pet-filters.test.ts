import { beforeAll, describe, expect, it } from 'vitest';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { nextLink, walkLinks } from '../helpers/pages.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

/** Names chosen for case folding, non-ASCII letters and LIKE's wildcards. */
const SEED = [
  { name: 'Rex', categoryId: 7, status: 'available' },
  { name: 'REXY', categoryId: 7, status: 'sold' },
  { name: 'Tyrannosaurus rex', categoryId: 8, status: 'available' },
  { name: 'Ölaf', categoryId: 7, status: 'available' },
  { name: 'ölaf the second', categoryId: 8, status: 'pending' },
  { name: 'ΣΟΦΙΑ', categoryId: 9, status: 'available' },
  { name: '100%_cat', categoryId: 9, status: 'available' },
  { name: '1000 cat', categoryId: 9, status: 'available' },
  { name: 'a_b', categoryId: 9, status: 'sold' },
  { name: 'axb', categoryId: 9, status: 'available' },
  { name: 'back\\slash', categoryId: 9, status: 'available' },
] as const;

const byName = new Map<string, number>();

beforeAll(async () => {
  for (const pet of SEED) {
    const created = await server.api<Pet>('POST', '/v1/pets', { body: pet });
    expect(created.status).toBe(201);
    byName.set(pet.name, created.body.id);
  }
});

const idOf = (name: string) => byName.get(name) ?? -1;

async function names(query: string): Promise<string[]> {
  const response = await server.api<Pet[]>('GET', `/v1/pets?limit=100&${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const ids = response.body.map((pet) => pet.id);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  return response.body.map((pet) => pet.name);
}

const q = (name: string) => `name=${encodeURIComponent(name)}`;

describe('GET /v1/pets filters', () => {
  it('finds pets by id, ascending, leaving out ids that do not exist', async () => {
    const list = [idOf('axb'), idOf('Rex'), 9_000_000_000_000, idOf('Rex')].join(',');
    expect(await names(`id=${list}`)).toEqual(['Rex', 'axb']);
    expect(await names(`id=${idOf('REXY')}`)).toEqual(['REXY']);
  });

  it('finds pets by category', async () => {
    expect(await names('categoryId=7')).toEqual(['Rex', 'REXY', 'Ölaf']);
  });

  it('finds names containing the text whatever its case, in any script', async () => {
    expect(await names(q('rex'))).toEqual(['Rex', 'REXY', 'Tyrannosaurus rex']);
    expect(await names(q('öLA'))).toEqual(['Ölaf', 'ölaf the second']);
    expect(await names(q('σοφ'))).toEqual(['ΣΟΦΙΑ']);
  });

  it('treats % and _ and \\ as the characters they are', async () => {
    expect(await names(q('%_c'))).toEqual(['100%_cat']);
    expect(await names(q('a_b'))).toEqual(['a_b']);
    expect(await names(q('0%_c'))).toEqual(['100%_cat']);
    expect(await names(q('k\\s'))).toEqual(['back\\slash']);
  });

  it('combines the filters with each other and with status', async () => {
    expect(await names(`categoryId=7&${q('rex')}`)).toEqual(['Rex', 'REXY']);
    expect(await names(`categoryId=7&${q('rex')}&status=sold`)).toEqual(['REXY']);
    const ids = [idOf('Rex'), idOf('REXY'), idOf('axb')].join(',');
    expect(await names(`id=${ids}&${q('rex')}&categoryId=7`)).toEqual(['Rex', 'REXY']);
    expect(await names(`id=${ids}&status=available`)).toEqual(['Rex', 'axb']);
    expect(await names(`categoryId=404`)).toEqual([]);
  });

  it.each([
    ['id=0', 'id'],
    ['id=abc', 'id'],
    ['id=1,,2', 'id'],
    ['id=', 'id'],
    ['id=-1', 'id'],
    ['id=9007199254740992', 'id'],
    [`id=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`, 'id'],
    ['categoryId=0', 'categoryId'],
    ['categoryId=x', 'categoryId'],
    ['name=', 'name'],
    [`name=${'a'.repeat(256)}`, 'name'],
    ['name=a%00bc', 'name'],
    ['name=a&name=b', 'name'],
  ])('answers %s with 400 naming %s', async (query, field) => {
    const response = await server.api<{ status: number; issues: { path: string }[] }>(
      'GET',
      `/v1/pets?${query}`,
    );
    expect(response.status).toBe(400);
    expect(response.body.status).toBe(400);
    expect(response.body.issues.map((issue) => issue.path)).toContain(field);
  });

  it('accepts a hundred ids', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1).join(',');
    expect((await server.api('GET', `/v1/pets?id=${hundred}`)).status).toBe(200);
  });
});

describe('GET /v1/pets name bounds', () => {
  it.each([
    ['re', 'at least 3'],
    ['  re  ', 'at least 3'],
    ['😀😀', 'at least 3'],
    ['é'.repeat(101), 'at most 100'],
  ])('refuses the term %j with 400 naming the bound', async (term, bound) => {
    const response = await server.api<{
      status: number;
      message: string;
      issues: { path: string; message: string }[];
    }>('GET', `/v1/pets?${q(term)}`);
    expect(response.status).toBe(400);
    expect(response.body.status).toBe(400);
    expect(response.body.message).toContain(bound);
    expect(response.body.issues.map((issue) => issue.path)).toEqual(['name']);
    expect(response.body.issues[0]?.message).toContain(bound);
  });

  it('counts code points after trimming, and searches the trimmed term', async () => {
    expect(await names(q('😀😀😀'))).toEqual([]);
    expect(await names(q('é'.repeat(100)))).toEqual([]);
    expect(await names(q('  rex  '))).toEqual(['Rex', 'REXY', 'Tyrannosaurus rex']);
  });

  it('refuses the same bounds on pets.list and pets.listPage', async () => {
    for (const procedure of ['pets.list', 'pets.listPage']) {
      for (const name of ['ab', 'x'.repeat(101)]) {
        const response = await server.trpc<{ error: { message: string } }>(
          procedure,
          { name },
          'query',
        );
        expect(response.status).toBe(400);
        expect(response.body.error.message).toMatch(/at (least 3|most 100) characters/);
      }
    }
  });
});

describe('GET /v1/pets pages with filters', () => {
  /** Follows `next` from `first` until it is absent, checking the link keeps the filters. */
  async function walk(first: string, filters: Record<string, string>): Promise<number[]> {
    const { items } = await walkLinks<Pet>(server.api, first, (_, next) => {
      for (const [key, value] of Object.entries(filters)) {
        if (next) expect(next.searchParams.get(key)).toBe(value);
      }
    });
    return items.map((pet) => pet.id);
  }

  it('visits every match exactly once, one page at a time', async () => {
    const ids = await walk(`/v1/pets?limit=1&${q('CAT')}&categoryId=9`, {
      name: 'CAT',
      categoryId: '9',
    });
    const expected = ['100%_cat', '1000 cat'].map(idOf);
    expect(ids).toEqual(expected);
  });

  it('carries the ids, sorted, in the next link', async () => {
    const list = [idOf('axb'), idOf('Rex'), idOf('Ölaf')];
    const ids = await walk(`/v1/pets?limit=2&id=${list.join(',')}`, {
      id: [...list].sort((a, b) => a - b).join(','),
    });
    expect(ids).toEqual([...list].sort((a, b) => a - b));
  });

  it('refuses a cursor used with other filters', async () => {
    const first = await server.api<Pet[]>('GET', `/v1/pets?limit=1&${q('rex')}`);
    const cursor = nextLink(first.headers)?.searchParams.get('cursor');
    expect(cursor).toBeTruthy();
    for (const other of [q('rexy'), `${q('rex')}&status=sold`, '', 'categoryId=7', `id=1`]) {
      const response = await server.api<{ issues: { path: string }[] }>(
        'GET',
        `/v1/pets?limit=1&${other}&cursor=${cursor ?? ''}`,
      );
      expect(response.status, other).toBe(400);
      expect(response.body.issues.map((issue) => issue.path)).toEqual(['cursor']);
    }
    const same = await server.api<Pet[]>('GET', `/v1/pets?limit=1&${q('rex')}&cursor=${cursor}`);
    expect(same.body.map((pet) => pet.name)).toEqual(['REXY']);
  });
});

describe('pets.list and pets.listPage with filters', () => {
  it('answer what REST answers, with the same string of ids', async () => {
    const ids = [idOf('Rex'), idOf('REXY'), idOf('Ölaf')].join(',');
    const input = { id: ids, name: 'rex', categoryId: 7, limit: 1 };
    const rest = await server.api<Pet[]>('GET', `/v1/pets?id=${ids}&name=rex&categoryId=7&limit=1`);
    const list = await server.trpc<{ result: { data: Pet[] } }>('pets.list', input, 'query');
    expect(list.body.result.data).toEqual(rest.body);
    const page = await server.trpc<{ result: { data: { items: Pet[]; nextCursor: string } } }>(
      'pets.listPage',
      input,
      'query',
    );
    expect(page.body.result.data.items).toEqual(rest.body);
    const second = await server.trpc<{ result: { data: { items: Pet[] } } }>(
      'pets.listPage',
      { ...input, cursor: page.body.result.data.nextCursor },
      'query',
    );
    expect(second.body.result.data.items.map((pet) => pet.name)).toEqual(['REXY']);
  });

  it('refuses bad filters with BAD_REQUEST', async () => {
    const response = await server.trpc('pets.list', { id: '1,x' }, 'query');
    expect(response.status).toBe(400);
  });
});
