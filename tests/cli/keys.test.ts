import { describe, expect, it, vi } from 'vitest';
import { hashApiKey } from '../../server/domain/auth/api-key.js';
import { runKeys } from '../helpers/keys-cli.js';
import { useTestServer } from '../helpers/server.js';

const db = () => server.database.handle.db;

const server = useTestServer();

interface Issued {
  id: string;
  key: string;
  name: string;
  scope: string;
}

async function create(...options: string[]): Promise<Issued> {
  const run = await runKeys(db(), 'create', ...options, '--json');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout) as Issued;
}

function pollUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  return vi.waitFor(
    async () => {
      expect(await condition()).toBe(true);
    },
    { timeout: timeoutMs, interval: 20 },
  );
}

describe('keys create', () => {
  it('prints {id, key, name, scope} as JSON, write by default, and the key works at once', async () => {
    const issued = await create('--name', 'shop front');
    expect(Object.keys(issued).sort()).toEqual(['id', 'key', 'name', 'scope']);
    expect(issued).toMatchObject({ name: 'shop front', scope: 'write' });
    expect(issued.key).toMatch(new RegExp(`^psk_${issued.id}_[0-9A-Za-z]{38}$`));

    const created = await server.api('POST', '/v1/pets', {
      key: issued.key,
      body: { name: 'Rex', categoryId: 1 },
    });
    expect(created.status).toBe(201);
    expect((await server.api('GET', '/v1/pets', { key: issued.key })).status).toBe(200);
  });

  it('shows the key once to a person, with its id, name and scope', async () => {
    const run = await runKeys(db(), 'create', '--name', 'reports', '--scope', 'read');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Issued API key \w{8} \("reports", scope read\)\./);
    expect(run.stdout).toMatch(/^ {4}psk_\w{8}_\w{38}$/m);
  });
});

describe('keys list', () => {
  it('lists keys with their public details and never a secret or a hash', async () => {
    const issued = await create('--name', 'listed', '--scope', 'read');
    const json = await runKeys(db(), 'list', '--json');
    expect(json.code).toBe(0);
    const keys = JSON.parse(json.stdout) as Record<string, unknown>[];
    const listed = keys.find((key) => key.id === issued.id);
    expect(listed).toEqual({
      id: issued.id,
      name: 'listed',
      scope: 'read',
      createdAt: expect.any(String) as string,
      lastUsedAt: null,
      revokedAt: null,
    });

    const table = await runKeys(db(), 'list');
    expect(table.stdout).toMatch(/^ID +NAME +SCOPE +CREATED +LAST USED +STATUS$/m);
    expect(table.stdout).toMatch(new RegExp(`^${issued.id} +listed +read .* active$`, 'm'));
    for (const output of [json.stdout, table.stdout]) {
      expect(output).not.toContain(issued.key);
      expect(output).not.toContain(issued.key.slice(13, 45));
      expect(output).not.toContain(hashApiKey(issued.key));
    }
  });

  it('shows when a key was last used', async () => {
    const issued = await create('--name', 'used');
    expect((await server.api('GET', '/v1/pets', { key: issued.key })).status).toBe(200);
    // The use is recorded in the background, off the request's path.
    await pollUntil(async () => {
      const keys = JSON.parse((await runKeys(db(), 'list', '--json')).stdout) as {
        id: string;
        lastUsedAt: string | null;
      }[];
      return keys.some((key) => key.id === issued.id && key.lastUsedAt !== null);
    }, 5_000);
  });
});

describe('keys revoke', () => {
  it('makes a running server refuse the key within one second', async () => {
    const issued = await create('--name', 'to revoke');
    // Used first, so the server holds it in its cache when it is revoked.
    expect((await server.api('GET', '/v1/pets', { key: issued.key })).status).toBe(200);

    const run = await runKeys(db(), 'revoke', issued.id);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`Revoked API key ${issued.id}`);
    // Every request that starts more than a second after the revocation must be refused.
    const revokedAt = performance.now();
    let lastAcceptedStart = revokedAt;
    await pollUntil(async () => {
      const startedAt = performance.now();
      const { status } = await server.api('GET', '/v1/pets', { key: issued.key });
      if (status === 200) lastAcceptedStart = startedAt;
      return status === 401;
    }, 2_000);
    expect(lastAcceptedStart - revokedAt).toBeLessThanOrEqual(1_000);

    const listed = JSON.parse((await runKeys(db(), 'list', '--json')).stdout) as {
      id: string;
      revokedAt: string | null;
    }[];
    expect(listed.find((key) => key.id === issued.id)?.revokedAt).toEqual(expect.any(String));
  });

  it.each([
    ['an unknown id', ['revoke', 'Unknown1'], /No active API key has id "Unknown1"/],
    ['a key from API_KEYS', ['revoke', 'env-1'], /comes from the API_KEYS setting/],
  ])('fails with exit code 1 for %s', async (_, argv, message) => {
    const run = await runKeys(db(), ...argv);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
  });

  it('fails with exit code 1 for a key revoked already', async () => {
    const issued = await create('--name', 'twice');
    expect((await runKeys(db(), 'revoke', issued.id)).code).toBe(0);
    expect((await runKeys(db(), 'revoke', issued.id)).code).toBe(1);
  });
});

describe('keys command line', () => {
  it('refuses a name over 200 characters with exit code 2', async () => {
    const run = await runKeys(db(), 'create', '--name', 'x'.repeat(201));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--name is 201 characters long; at most 200/);
  });

  it.each([
    [['--help']],
    [['help']],
    [['create', '--help']],
    [['list', '-h']],
    [['revoke', '--help']],
  ])('prints help for %j and exits 0', async (argv) => {
    const run = await runKeys(db(), ...argv);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: npm run keys -- /);
  });

  it.each([
    [[], /No command given/],
    [['rotate'], /Unknown command "rotate"/],
    [['create'], /create needs --name <name>/],
    [['create', '--name', '   '], /create needs --name <name>/],
    [['create', '--name'], /argument missing/],
    [['create', '--name', 'x', '--scope', 'admin'], /--scope must be read or write, not "admin"/],
    [['create', '--nme', 'x'], /Unknown option '--nme'/],
    [['list', 'extra'], /Unexpected argument 'extra'/],
    [['revoke'], /revoke needs the id/],
    [['revoke', 'a', 'b'], /revoke takes one id/],
  ])('refuses %j with exit code 2 and the usage', async (argv, message) => {
    const run = await runKeys(db(), ...argv);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('Usage: npm run keys -- ');
  });
});
