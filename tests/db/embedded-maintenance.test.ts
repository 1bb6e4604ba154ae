import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintainTables, maintenanceSteps, tableActivity } from '../../db/embedded/maintenance.js';
import { createTestDatabase, type TestDatabase, describeOnEmbedded } from '../helpers/database.js';

const table = {
  table: 'pets',
  estimatedRows: 10_000,
  statisticsPages: 100,
  pages: 100,
  modifiedSinceAnalyze: 0,
  deadRows: 0,
  missingStatistics: false,
  columns: ['id', 'name'],
};

describe('maintenanceSteps', () => {
  it('takes none for a table whose statistics are fresh and that holds few dead rows', () => {
    expect(
      maintenanceSteps([{ ...table, modifiedSinceAnalyze: 1_050, deadRows: 2_050 }], 'start'),
    ).toEqual([]);
  });

  it('analyzes past autovacuum’s threshold of changed rows (50 + 10%)', () => {
    expect(maintenanceSteps([{ ...table, modifiedSinceAnalyze: 1_051 }], 'start')).toEqual([
      { table: 'pets', action: 'analyze' },
    ]);
  });

  it('vacuums past autovacuum’s threshold of dead rows (50 + 20%)', () => {
    expect(maintenanceSteps([{ ...table, deadRows: 2_051 }], 'start')).toEqual([
      { table: 'pets', action: 'vacuum' },
    ]);
  });

  it('analyzes a table never analyzed, even empty (a migration just made it)', () => {
    expect(
      maintenanceSteps([{ ...table, estimatedRows: -1, statisticsPages: 0, pages: 0 }], 'start'),
    ).toEqual([{ table: 'pets', action: 'analyze' }]);
  });

  it('analyzes only the columns in a round, leaving the index expressions’ statistics', () => {
    expect(maintenanceSteps([{ ...table, modifiedSinceAnalyze: 1_051 }], 'round')).toEqual([
      { table: 'pets', action: 'analyze', columns: ['id', 'name'] },
    ]);
  });

  it('vacuums and analyzes a table with rows and no statistics, whatever its size says', () => {
    expect(maintenanceSteps([{ ...table, missingStatistics: true }], 'start')).toEqual([
      { table: 'pets', action: 'vacuum' },
      { table: 'pets', action: 'analyze' },
    ]);
  });

  it('vacuums and analyzes a table whose size drifted from its statistics, vacuum first', () => {
    expect(maintenanceSteps([{ ...table, pages: 119 }], 'start')).toEqual([
      { table: 'pets', action: 'vacuum' },
      { table: 'pets', action: 'analyze' },
    ]);
  });
});

describeOnEmbedded('maintainTables on PGlite', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.destroy());

  const pets = async () =>
    (await tableActivity(database.handle.db)).find((activity) => activity.table === 'pets');

  it('analyzes the tables the migrations made, then has nothing left to do', async () => {
    const first = await maintainTables(database.handle.db, 'start');
    expect(first.map((step) => step.table)).toContain('orders');
    expect(await maintainTables(database.handle.db, 'start')).toEqual([]);
  });

  it('analyzes after many writes and vacuums after many deletes', async () => {
    const { db } = database.handle;
    await db.execute(sql`
      insert into pets (name, category_id) select 'Pet ' || g, 1 from generate_series(1, 2000) g`);
    const analyzed = await maintainTables(db, 'round');
    expect(analyzed).toContainEqual(expect.objectContaining({ table: 'pets', action: 'analyze' }));
    expect((await pets())?.estimatedRows).toBe(2_000);

    await db.execute(sql`delete from pets where id % 2 = 0`);
    expect((await pets())?.deadRows).toBe(1_000);
    const vacuumed = await maintainTables(db, 'round');
    expect(vacuumed).toContainEqual(expect.objectContaining({ table: 'pets', action: 'vacuum' }));
    expect((await pets())?.deadRows).toBe(0);
    expect(await maintainTables(db, 'round')).toEqual([]);
  });

  it('gives the event loop a turn before each step', async () => {
    const { db } = database.handle;
    await db.execute(sql`delete from pets where id % 3 = 0`);
    let turns = 0;
    let done = false;
    const turn = () => {
      turns += 1;
      if (!done) setImmediate(turn);
    };
    setImmediate(turn);
    const steps = await maintainTables(db, 'round').finally(() => {
      done = true;
    });
    // pets, and pet_names, whose rows went with the pets' distinct names.
    expect(steps.filter((step) => step.table === 'pets').map((step) => step.action)).toEqual([
      'vacuum',
      'analyze',
    ]);
    expect(turns).toBeGreaterThanOrEqual(steps.length);
  });
});
