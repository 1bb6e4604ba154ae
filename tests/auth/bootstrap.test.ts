import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../server/auth/authenticator.js';
import { ensureApiKey } from '../../server/auth/bootstrap.js';
import { ConfigError } from '../../server/process/config.js';
import { spawnServer } from '../helpers/child-server.js';
import { createTestDatabase, testDatabaseTarget, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const target = testDatabaseTarget();

describe('the first key', () => {
  it('is not issued when API_KEYS configures one', async () => {
    await expect(ensureApiKey(database.handle, ['configured-key'])).resolves.toBeUndefined();
  });

  if (target.kind === 'pglite') {
    it('is issued once on an empty embedded database, and it works', async () => {
      const issued = await ensureApiKey(database.handle, []);
      expect(issued?.key).toMatch(/^psk_/);
      const principal = await new Authenticator(database.handle.db, []).authenticate(
        issued?.key ?? '',
      );
      expect(principal).toEqual({ keyId: issued?.id, scope: 'write' });
      await expect(ensureApiKey(database.handle, [])).resolves.toBeUndefined();
    });
  } else {
    it('is never issued on PostgreSQL: start-up refuses and says how to set one', async () => {
      const refusal: unknown = await ensureApiKey(database.handle, []).catch(
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(ConfigError);
      expect((refusal as ConfigError).message).toMatch(/API_KEYS=.*npm run keys -- create/);
    });
  }
});

// The printed key is a property of the embedded database's first start.
if (target.kind === 'pglite') {
  describe('the first start on a new data folder', () => {
    it('prints the key once on the terminal, never in the logs, and not again on restart', async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'petstore-bootstrap-'));
      try {
        const first = await spawnServer({ PGLITE_DIR: dataDir });
        await first.stop();
        const key = /psk_[A-Za-z0-9_]+/.exec(first.output())?.[0];
        expect(key).toBeDefined();
        expect(first.logs.some((line) => JSON.stringify(line).includes(key ?? '?'))).toBe(false);

        const second = await spawnServer({ PGLITE_DIR: dataDir });
        try {
          expect(second.output()).not.toMatch(/psk_/);
          const response = await fetch(`${second.origin}/v1/pets`, {
            headers: { authorization: `Bearer ${key ?? ''}` },
          });
          expect(response.status).toBe(200);
        } finally {
          await second.stop();
        }
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    }, 120_000);
  });
}
