import { count, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeys } from '../../db/schema.js';
import type { Principal } from '../../server/domain/auth/authenticator.js';
import { purgeExpiredIdempotencyKeys } from '../../server/domain/idempotency/purge.js';
import { callerFor, rejection } from '../helpers/caller.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { newPet, reader, writer } from '../helpers/factories.js';

const otherWriter: Principal = { keyId: 'other-writer', scope: 'write' };

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

function callerWith(idempotencyKey: string | undefined, principal: Principal = writer) {
  return callerFor({ db: database.handle.db, principal, idempotencyKey });
}

async function storedKeys(keys: string[]): Promise<number> {
  const [row] = await database.handle.db
    .select({ n: count() })
    .from(idempotencyKeys)
    .where(inArray(idempotencyKeys.key, keys));
  return row?.n ?? 0;
}

function age(keys: string[]) {
  return database.handle.db
    .update(idempotencyKeys)
    .set({ createdAt: sql`now() - interval '25 hours'` })
    .where(inArray(idempotencyKeys.key, keys));
}

describe('pets.create with an idempotency key', () => {
  it('replays the stored pet with its Location, its first ETag and the replay header', async () => {
    const body = newPet();
    const first = callerWith('router-replay');
    const pet = await first.caller.pets.create(body);
    expect(first.ctx.responseHeaders['idempotent-replayed']).toBeUndefined();

    const again = callerWith('router-replay');
    await expect(again.caller.pets.create(body)).resolves.toEqual(pet);
    expect(again.ctx.responseHeaders).toEqual({
      location: `http://pets.test/v1/pets/${pet.id}`,
      etag: `"${pet.id}.1"`,
      'idempotent-replayed': 'true',
    });
  });

  it('replays the original response after the pet was changed and after it was deleted', async () => {
    const body = newPet();
    const pet = await callerWith('router-after-change').caller.pets.create(body);
    const changer = callerWith(undefined).caller;
    await changer.pets.update({ petId: pet.id, name: 'Renamed', status: 'sold' });
    const afterUpdate = callerWith('router-after-change');
    await expect(afterUpdate.caller.pets.create(body)).resolves.toEqual(pet);
    expect(afterUpdate.ctx.responseHeaders.etag).toBe(`"${pet.id}.1"`);
    await changer.pets.delete({ petId: pet.id });
    await expect(callerWith('router-after-change').caller.pets.create(body)).resolves.toEqual(pet);
  });

  it('names the key in UNPROCESSABLE_CONTENT for a different body', async () => {
    await callerWith('router-mismatch').caller.pets.create(newPet());
    const error = await rejection(callerWith('router-mismatch').caller.pets.create(newPet()));
    expect(error.code).toBe('UNPROCESSABLE_CONTENT');
    expect(error.message).toBe(
      'Idempotency-Key "router-mismatch" was already used with a different request body',
    );
  });

  it('keeps the keys of different API keys apart', async () => {
    const body = newPet();
    const mine = await callerWith('router-shared').caller.pets.create(body);
    const theirs = await callerWith('router-shared', otherWriter).caller.pets.create(body);
    expect(theirs.id).not.toBe(mine.id);
  });

  it('refuses an invalid key before storing anything', async () => {
    const error = await rejection(callerWith('tab\there').caller.pets.create(newPet()));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(/^Invalid Idempotency-Key header/);
    expect(await storedKeys(['tab\there'])).toBe(0);
  });

  it('refuses a read-only key before looking at the idempotency key', async () => {
    const error = await rejection(callerWith('router-reader', reader).caller.pets.create(newPet()));
    expect(error.code).toBe('FORBIDDEN');
    expect(await storedKeys(['router-reader'])).toBe(0);
  });
});

describe('purgeExpiredIdempotencyKeys', () => {
  it('deletes every expired key in batches and keeps the live ones', async () => {
    const expired = ['purge-1', 'purge-2', 'purge-3'];
    for (const key of [...expired, 'purge-live']) {
      await callerWith(key).caller.pets.create(newPet());
    }
    await age(expired);

    await expect(purgeExpiredIdempotencyKeys(database.handle.db, 2)).resolves.toEqual({
      deleted: 3,
      batches: 2,
    });
    expect(await storedKeys(expired)).toBe(0);
    expect(await storedKeys(['purge-live'])).toBe(1);
  });

  it('lets an expired key that was not purged yet be used again', async () => {
    const body = newPet();
    const first = await callerWith('expired-unpurged').caller.pets.create(body);
    await age(['expired-unpurged']);
    const second = callerWith('expired-unpurged');
    const pet = await second.caller.pets.create(body);
    expect(pet.id).not.toBe(first.id);
    expect(second.ctx.responseHeaders['idempotent-replayed']).toBeUndefined();
    const [row] = await database.handle.db
      .select({ response: idempotencyKeys.response })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, 'expired-unpurged'));
    expect(row?.response).toEqual({ body: pet, headers: { etag: `"${pet.id}.1"` } });
  });
});
