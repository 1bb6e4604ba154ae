import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { callerFor } from '../helpers/caller.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { newPet, reader, writer } from '../helpers/factories.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const store = () => callerFor({ db: database.handle.db, principal: writer }).caller;
const inventory = () =>
  callerFor({ db: database.handle.db, principal: reader }).caller.store.inventory();

/** What counting every live pet answers: the inventory must always agree with it. */
async function fullCount() {
  const rows = await executeRows<{ status: string; n: string | number }>(
    database.handle.db,
    sql`select status, count(*) as n from pets where deleted_at is null group by status`,
  );
  const counts = { available: 0, pending: 0, sold: 0 };
  for (const row of rows) counts[row.status as keyof typeof counts] = Number(row.n);
  return counts;
}

/** The change of each count that `change` made. */
async function deltaOf(change: () => Promise<unknown>) {
  const before = await inventory();
  await change();
  const after = await inventory();
  expect(after).toEqual(await fullCount());
  return {
    available: after.available - before.available,
    pending: after.pending - before.pending,
    sold: after.sold - before.sold,
  };
}

describe('store.inventory', () => {
  it('answers every status, zero included, on an empty store', async () => {
    expect(await inventory()).toEqual({ available: 0, pending: 0, sold: 0 });
  });

  it('counts each create in its status', async () => {
    expect(await deltaOf(() => store().pets.create(newPet()))).toEqual({
      available: 1,
      pending: 0,
      sold: 0,
    });
    expect(await deltaOf(() => store().pets.create(newPet({ status: 'sold' })))).toEqual({
      available: 0,
      pending: 0,
      sold: 1,
    });
  });

  it('moves a pet between counts when its status changes, and not when its name does', async () => {
    const pet = await store().pets.create(newPet());
    expect(await deltaOf(() => store().pets.update({ petId: pet.id, status: 'pending' }))).toEqual({
      available: -1,
      pending: 1,
      sold: 0,
    });
    expect(await deltaOf(() => store().pets.update({ petId: pet.id, name: 'Renamed' }))).toEqual({
      available: 0,
      pending: 0,
      sold: 0,
    });
    expect(await deltaOf(() => store().pets.update({ petId: pet.id, status: 'sold' }))).toEqual({
      available: 0,
      pending: -1,
      sold: 1,
    });
  });

  it('stops counting a deleted pet', async () => {
    const pet = await store().pets.create(newPet({ status: 'pending' }));
    expect(await deltaOf(() => store().pets.delete({ petId: pet.id }))).toEqual({
      available: 0,
      pending: -1,
      sold: 0,
    });
  });

  it('follows orders: placed reserves, delivered sells, cancelled frees', async () => {
    const first = await store().pets.create(newPet());
    let order = { id: 0 };
    expect(
      await deltaOf(async () => (order = await store().orders.place({ petId: first.id }))),
    ).toEqual({ available: -1, pending: 1, sold: 0 });
    await store().orders.update({ orderId: order.id, status: 'approved' });
    expect(
      await deltaOf(() => store().orders.update({ orderId: order.id, status: 'delivered' })),
    ).toEqual({ available: 0, pending: -1, sold: 1 });

    const second = await store().pets.create(newPet());
    const other = await store().orders.place({ petId: second.id });
    expect(
      await deltaOf(() => store().orders.update({ orderId: other.id, status: 'cancelled' })),
    ).toEqual({ available: 1, pending: -1, sold: 0 });
  });

  it('counts pets that other writers insert, update and remove with plain SQL', async () => {
    const { db } = database.handle;
    expect(
      await deltaOf(() =>
        db.execute(sql`insert into pets (name, category_id, status)
          select 'Imported ' || g, 1, (array['available','sold'])[1 + g % 2]::pet_status
          from generate_series(1, 500) as g`),
      ),
    ).toEqual({ available: 250, pending: 0, sold: 250 });
    expect(
      await deltaOf(() =>
        db.execute(
          sql`update pets set status = 'pending' where name like 'Imported %' and status = 'available'`,
        ),
      ),
    ).toEqual({ available: -250, pending: 250, sold: 0 });
    expect(
      await deltaOf(() => db.execute(sql`delete from pets where name like 'Imported %'`)),
    ).toEqual({ available: 0, pending: -250, sold: -250 });
  });
});
