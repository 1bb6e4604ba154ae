import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeFlags } from '../../scripts/start-flags.js';
import { createChildDatabase, type ChildDatabase } from '../helpers/child-database.js';
import { spawnServer, type ChildServer } from '../helpers/child-server.js';
import { freePort } from '../helpers/ports.js';
import { rawRequest } from '../helpers/http.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The service's command line run to completion, as a person at a terminal runs it. */
function runService(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    [...startNodeFlags(), '--import', 'tsx', 'server/main.ts', ...args],
    { cwd: repoRoot, env: { PATH: process.env.PATH, PORT: '0', ...env } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the command line', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'petstore-cli-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('prints usage for --help and exits 0 without starting', async () => {
    const run = await runService(['--help'], { PGLITE_DIR: dataDir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: /);
    expect(run.stdout).toContain('METRICS_PORT');
    expect(run.stdout).not.toContain('listening');
  });

  it('refuses an unknown argument with the usage and exit code 64', async () => {
    const run = await runService(['--port', '80'], { PGLITE_DIR: dataDir });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain("Unknown option '--port'");
    expect(run.stderr).toContain('Usage: ');
  });

  /** The one fatal line of a run whose every stdout line is JSON (buffered lines follow it). */
  function fatalLine(stdout: string) {
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const fatal = lines.filter((line) => line.level === 60);
    expect(fatal).toHaveLength(1);
    return fatal[0] as { msg: string; err: { code?: string; kind: string; stack?: string } };
  }

  it.each(['PORT', 'METRICS_PORT'])(
    'reports a taken %s as one JSON line naming the listener and its address, exit code 1',
    async (setting) => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const { port } = taken.address() as AddressInfo;
      const listener = setting === 'PORT' ? 'service' : 'metrics';
      try {
        const run = await runService([], {
          PGLITE_DIR: dataDir,
          HOST: '127.0.0.1',
          PORT: '0',
          METRICS_HOST: '127.0.0.1',
          [setting]: String(port),
          API_KEYS: 'start-failure-key-0123456789abcdef',
        });
        expect(run.code).toBe(1);
        expect(run.stderr).toBe('');
        const fatal = fatalLine(run.stdout);
        expect(fatal).toMatchObject({
          msg: `The ${listener} listener could not listen on 127.0.0.1:${port}`,
          listener,
          address: `127.0.0.1:${port}`,
          err: { code: 'EADDRINUSE' },
        });
        expect(fatal.err.stack).toContain('at ');
      } finally {
        taken.close();
      }
    },
  );

  it('names a bad variable and the form it expects, in one JSON line, exit code 78', async () => {
    const run = await runService([], { PGLITE_DIR: dataDir, PORT: 'abc' });
    expect(run.code).toBe(78);
    const fatal = fatalLine(run.stdout);
    expect(fatal.msg).toContain('PORT="abc": expected a whole number from 0 to 65535');
    expect(fatal.msg).not.toContain('NaN');
    expect(fatal.err.kind).toBe('ConfigError');
  });
});

describe('a service started without PUBLIC_BASE_URL', () => {
  let database: ChildDatabase;
  let server: ChildServer;
  let port: number;

  beforeAll(async () => {
    database = await createChildDatabase();
    port = await freePort();
    // PostgreSQL refuses to start without a key; the embedded database issues its first.
    server = await spawnServer({
      ...database.env,
      PORT: String(port),
      API_KEYS: 'first-start-key-0123456789',
    });
  });
  afterAll(async () => {
    await server.stop();
    await database.destroy();
  });

  it('answers GET / with where the docs and the API are', async () => {
    const response = await rawRequest(server.origin, '/');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ docs: '/docs', openapi: '/v1/openapi.json' });
  });

  it('serves an OpenAPI document naming the address it listens on', async () => {
    const response = await rawRequest(server.origin, '/v1/openapi.json');
    const document = JSON.parse(response.body) as { servers: { url: string }[] };
    expect(document.servers[0]?.url).toBe(`http://127.0.0.1:${port}/v1`);
  });
});
