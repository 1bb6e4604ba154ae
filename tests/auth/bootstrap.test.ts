import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../server/domain/auth/authenticator.js';
import { ensureApiKey } from '../../server/domain/auth/bootstrap.js';
import { ConfigError } from '../../server/support/errors.js';
import { firstStartOnTerminal, spawnServer } from '../helpers/child-server.js';
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

// The first key is a property of the embedded database's first start.
if (target.kind === 'pglite') {
  describe('the first start on a new data folder', () => {
    it('puts the key in a 0600 file when stderr is no terminal, says where, and never prints it', async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'petstore-bootstrap-'));
      try {
        // The child's stderr is a pipe, as under docker or systemd.
        const first = await spawnServer({ PGLITE_DIR: dataDir });
        await first.stop();
        expect(first.output()).not.toMatch(/psk_/);
        const line = first.logs.find((entry) => String(entry.msg).startsWith('issued the first'));
        expect(line).toMatchObject({ level: 40, file: join(dataDir, 'first-api-key') });
        const file = String(line?.file);
        expect((await stat(file)).mode & 0o777).toBe(0o600);
        const key = (await readFile(file, 'utf8')).trim();
        expect(key).toMatch(/^psk_[A-Za-z0-9]{8}_[A-Za-z0-9]{38}$/);
        expect(line?.keyId).toBe(key.slice(4, 12));

        const second = await spawnServer({ PGLITE_DIR: dataDir });
        try {
          expect(second.output()).not.toMatch(/psk_|issued the first/);
          const response = await fetch(`${second.origin}/v1/pets`, {
            headers: { authorization: `Bearer ${key}` },
          });
          expect(response.status).toBe(200);
        } finally {
          await second.stop();
        }
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    }, 120_000);

    it('prints the key on a terminal, once, and writes no file', async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'petstore-bootstrap-'));
      try {
        const output = await firstStartOnTerminal(dataDir);
        expect(output).toMatch(
          /Issued the first API key \([A-Za-z0-9]{8}\); it is shown only this once/,
        );
        expect(output.match(/^\s+psk_\S+$/m)).not.toBeNull();
        await expect(stat(join(dataDir, 'first-api-key'))).rejects.toThrow(/ENOENT/);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    }, 120_000);
  });
}
