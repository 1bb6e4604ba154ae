import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../db/database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * pet_names is kept by triggers in the database, so every writer keeps it: here plain SQL, as
 * an import or another tool would write, of every kind the triggers must follow.
 */
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(() => database.destroy());

const run = (statement: string) => database.handle.db.execute(sql.raw(statement));
const names = () =>
  executeRows<{ name: string; live_pets: number }>(
    database.handle.db,
    sql`select name, live_pets from pet_names order by name`,
  );

describe('pet_names after writes of every kind', () => {
  it('counts each lower-cased name of the live pets, and forgets a name nobody has', async () => {
    await run(`insert into pets (name, category_id) values ('Rex', 1), ('REX', 1), ('Éclair', 2)`);
    expect(await names()).toEqual([
      { name: 'rex', live_pets: 2 },
      { name: 'éclair', live_pets: 1 },
    ]);
    await run(`update pets set name = 'Zoë' where name = 'REX'`);
    await run(`update pets set status = 'sold' where name = 'Rex'`);
    expect(await names()).toEqual([
      { name: 'rex', live_pets: 1 },
      { name: 'zoë', live_pets: 1 },
      { name: 'éclair', live_pets: 1 },
    ]);
    await run(`update pets set deleted_at = now() where name in ('Rex', 'Zoë')`);
    // A deleted pet's rename changes nothing: it is in no list.
    await run(`update pets set name = 'Ghost' where name = 'Zoë'`);
    await run(`delete from pets where name = 'Éclair'`);
    expect(await names()).toEqual([]);
    await run(`insert into pets (name, category_id, deleted_at) values ('Late', 1, now())`);
    expect(await names()).toEqual([]);
  });
});
