import { and, count, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { idempotencyKeys, pets } from '../../db/schema.js';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { newPet } from '../helpers/factories.js';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const OTHER_KEY = 'test-key-other';

let keySequence = 0;

const server = useTestServer({ apiKeys: [TEST_KEY, OTHER_KEY] });

const freshKey = () => `key-${process.pid}-${++keySequence}`;

function create(body: unknown, idempotencyKey: string, key?: string) {
  return server.api<Pet>('POST', '/v1/pets', {
    body,
    headers: { 'idempotency-key': idempotencyKey },
    key,
  });
}

async function petsNamed(name: string): Promise<number> {
  const [row] = await server.database.handle.db
    .select({ n: count() })
    .from(pets)
    .where(eq(pets.name, name));
  return row?.n ?? 0;
}

async function keysStored(key: string): Promise<number> {
  const [row] = await server.database.handle.db
    .select({ n: count() })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, key));
  return row?.n ?? 0;
}

describe('POST /v1/pets with Idempotency-Key', () => {
  it('replays the original 201 for the same key and body, creating nothing', async () => {
    const key = freshKey();
    const body = newPet();
    const first = await create(body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const again = await create(body, key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await petsNamed(body.name)).toBe(1);
  });

  it('treats the quoted and the bare form as one key, and the defaulted status as given', async () => {
    const key = freshKey();
    const body = newPet();
    const first = await create(body, `"${key}"`);
    const again = await create({ ...body, status: 'available' }, key);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers the same key with a different body with 422 and keeps the original', async () => {
    const key = freshKey();
    const body = newPet();
    const first = await create(body, key);
    const other = await create({ ...body, categoryId: body.categoryId + 1 }, key);
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: 'UNPROCESSABLE_CONTENT', status: 422 });
    const again = await create(body, key);
    expect(again.body.id).toBe(first.body.id);
  });

  it('creates exactly one pet from 20 simultaneous requests with one key', async () => {
    const key = freshKey();
    const body = newPet();
    const responses = await Promise.all(Array.from({ length: 20 }, () => create(body, key)));
    const created = responses.filter((response) => response.status === 201);
    for (const response of responses) expect([201, 409]).toContain(response.status);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((response) => response.body.id)).size).toBe(1);
    expect(
      created.filter((response) => response.headers.get('idempotent-replayed') === null),
    ).toHaveLength(1);
    for (const conflict of responses.filter((response) => response.status === 409)) {
      expect(conflict.body).toMatchObject({ code: 'CONFLICT' });
    }
    expect(await petsNamed(body.name)).toBe(1);
    expect(await keysStored(key)).toBe(1);
  });

  it('scopes keys to the API key that sent them', async () => {
    const key = freshKey();
    const body = newPet();
    const mine = await create(body, key, TEST_KEY);
    const theirs = await create(body, key, OTHER_KEY);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    const mismatch = await create(newPet(), key, OTHER_KEY);
    expect(mismatch.status).toBe(422);
  });

  it('forgets a key after 24 hours', async () => {
    const key = freshKey();
    const body = newPet();
    const first = await create(body, key);
    await server.database.handle.db
      .update(idempotencyKeys)
      .set({ createdAt: sql`now() - interval '24 hours 1 second'` })
      .where(eq(idempotencyKeys.key, key));

    const later = await create({ ...body, categoryId: body.categoryId + 1 }, key);
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    const replay = await create({ ...body, categoryId: body.categoryId + 1 }, key);
    expect(replay.body.id).toBe(later.body.id);
  });

  it.each([
    ['an empty value', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a non-ASCII character', 'clé'],
    ['a control character', 'a\tb'],
    ['an unterminated quoted string', '"abc'],
    ['an empty quoted string', '""'],
    ['text after the quoted string', '"abc";q=1'],
  ])('answers %s with 400 and stores nothing', async (_, value) => {
    const body = newPet();
    const response = await create(body, value);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'BAD_REQUEST' });
    expect((response.body as unknown as { message: string }).message).toMatch(/Idempotency-Key/);
    expect(await petsNamed(body.name)).toBe(0);
  });

  it('accepts 255 characters and escaped quotes', async () => {
    for (const value of ['k'.repeat(255), '"a \\"quoted\\" \\\\ key"']) {
      expect((await create(newPet(), value)).status).toBe(201);
    }
  });

  it('stores nothing for a body that fails validation, so the key stays usable', async () => {
    const key = freshKey();
    const invalid = await create({ name: '', categoryId: 1 }, key);
    expect(invalid.status).toBe(400);
    expect(await keysStored(key)).toBe(0);
    const valid = await create(newPet(), key);
    expect(valid.status).toBe(201);
    expect(valid.headers.get('idempotent-replayed')).toBeNull();
  });

  it('is honoured on the tRPC surface too, with the replay header', async () => {
    const key = freshKey();
    const body = newPet();
    const call = () =>
      fetch(`${server.origin}/trpc/pets.create`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_KEY}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify(body),
      });
    const first = await call();
    const again = await call();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const ids = await Promise.all(
      [first, again].map(async (response) => {
        const { result } = (await response.json()) as { result: { data: Pet } };
        return result.data.id;
      }),
    );
    expect(ids[1]).toBe(ids[0]);
    const [stored] = await server.database.handle.db
      .select({ apiKeyId: idempotencyKeys.apiKeyId })
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.key, key)));
    expect(stored?.apiKeyId).toBe('env-1');
  });
});
