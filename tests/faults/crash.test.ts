import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChildDatabase, type ChildDatabase } from '../helpers/child-database.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { testDatabaseTarget } from '../helpers/database.js';
import { runBounded } from '../helpers/load.js';
import { TEST_KEY } from '../helpers/server.js';

const CREATES = 400;
const IN_FLIGHT = 20;
/** Kill once this many creates were acknowledged: well inside the stream, with more in flight. */
const KILL_AFTER = 150;

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

let database: ChildDatabase;
let server: ChildServer | undefined;

beforeAll(async () => {
  database = await createChildDatabase();
});
afterAll(async () => {
  await server?.kill();
  await database.destroy();
});

const env = () => ({ ...database.env, API_KEYS: TEST_KEY });
const authorization = `Bearer ${TEST_KEY}`;

describe('kill -9 of the server during a stream of creates', () => {
  it('keeps every pet that was acknowledged with 201, with the acknowledged content', async () => {
    const first = await spawnServer(env());
    server = first;
    const acknowledged: Pet[] = [];
    let refused = 0;
    let killing: Promise<void> | undefined;
    await runBounded(CREATES, IN_FLIGHT, async (index) => {
      if (killing) return;
      try {
        const response = await fetch(`${first.origin}/v1/pets`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: `crash ${index} ✓ ${'x'.repeat(index % 50)}`,
            categoryId: 1 + index,
            status: index % 2 ? 'pending' : 'sold',
          }),
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await response.json()) as Pet;
        if (response.status === 201) acknowledged.push(body);
        else refused++;
      } catch {
        // The connection died with the server: not acknowledged, so no promise was made.
      }
      if (acknowledged.length >= KILL_AFTER) killing ??= first.kill();
    });
    await killing;
    expect(refused).toBe(0);
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(first.child.signalCode).toBe('SIGKILL');

    const second = await spawnServer(env());
    server = second;
    const lost: Pet[] = [];
    await runBounded(acknowledged.length, 10, async (index) => {
      const pet = acknowledged[index] as Pet;
      const response = await fetch(`${second.origin}/v1/pets/${pet.id}`, {
        headers: { authorization },
        signal: AbortSignal.timeout(10_000),
      });
      const stored = response.status === 200 ? ((await response.json()) as Pet) : undefined;
      if (JSON.stringify(stored) !== JSON.stringify(pet)) lost.push(pet);
    });
    expect(lost).toEqual([]);

    // The restarted server takes writes again: the crash left nothing that blocks it.
    const after = await fetch(`${second.origin}/v1/pets`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'after the crash', categoryId: 1 }),
    });
    expect(after.status).toBe(201);
    await second.stop();
    expect(second.child.exitCode).toBe(0);
    if (testDatabaseTarget().kind === 'pglite') {
      expect(second.output()).toMatch(/survive a crash of this process but not an OS crash/);
    }
    server = undefined;
  }, 120_000);
});
