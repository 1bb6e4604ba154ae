import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Pet } from '../../server/domain/schemas/pet.js';
import { createHttpClients, type ApiClient } from '../helpers/http.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { loadConformance } from '../helpers/conformance.js';
import { createPostgresDatabase, testDatabaseTarget } from '../helpers/database.js';
import { newPet } from '../helpers/factories.js';

const API_KEY = 'restart-test-key';

let env: Record<string, string>;
let cleanup: () => Promise<void>;
let running: ChildServer | undefined;
let first: ApiClient;

/**
 * Both projects run this: PostgreSQL in a database of its own, PGlite in a data folder (not
 * memory://) so that, like PostgreSQL, it outlives the killed process.
 */
beforeAll(async () => {
  const target = testDatabaseTarget();
  if (target.kind === 'postgres') {
    const database = await createPostgresDatabase(target);
    env = { DATABASE_URL: database.url, API_KEYS: API_KEY };
    cleanup = database.drop;
  } else {
    const dataDir = mkdtempSync(join(tmpdir(), 'petstore-restart-'));
    env = { PGLITE_DIR: dataDir, API_KEYS: API_KEY };
    cleanup = () => {
      rmSync(dataDir, { recursive: true, force: true });
      return Promise.resolve();
    };
  }
  // Started here, under the hook timeout: a fresh PGlite folder takes seconds to initialise.
  first = await start();
});
afterAll(async () => {
  await running?.kill();
  await cleanup();
});

async function start(): Promise<ApiClient> {
  running = await spawnServer(env);
  return createHttpClients(running.origin, await loadConformance(running.origin), API_KEY).api;
}

/**
 * The first server has committed once the pet is visible to a reader. Nothing else tells: the
 * caller's answer is the one the crash is meant to lose.
 */
async function waitForPetNamed(api: ApiClient, name: string): Promise<Pet> {
  return vi.waitFor(
    async () => {
      const page = await api<Pet[]>('GET', '/v1/pets?limit=100');
      const pet = page.body.find((candidate) => candidate.name === name);
      if (!pet) throw new Error(`No pet named ${name} yet`);
      return pet;
    },
    { timeout: 10_000, interval: 20 },
  );
}

describe('POST /v1/pets with Idempotency-Key across a crash', () => {
  // Two process starts (one with crash recovery) take several seconds on PGlite.
  it(
    'returns the committed pet when the retry reaches a restarted server',
    { timeout: 60_000 },
    async () => {
      const body = newPet({ name: `Survivor ${process.pid}` });
      const headers = { 'idempotency-key': `crash-${process.pid}` };

      // The caller never learns the outcome: its response is lost with the process.
      const lost = first('POST', '/v1/pets', { body, headers }).catch(() => undefined);
      // The pet and its key commit in one transaction, so a visible pet means a stored key.
      const committed = await waitForPetNamed(first, body.name);
      await running?.kill();
      await lost;

      const second = await start();
      const retry = await second<Pet>('POST', '/v1/pets', { body, headers });
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual(committed);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.headers.get('location')).toBe(
        `${running?.origin ?? ''}/v1/pets/${committed.id}`,
      );
      const all = await second<Pet[]>('GET', '/v1/pets?limit=100');
      expect(all.body.filter((pet) => pet.name === body.name)).toHaveLength(1);
    },
  );
});
