import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { freePort } from './ports.js';

export const PGBOUNCER_BIN = '/usr/sbin/pgbouncer';
const START_TIMEOUT_MS = 10_000;

export interface PgBouncer {
  /** The PostgreSQL server's URL with host and port replaced by the pooler's. */
  pooled(serverUrl: string): string;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode with its default settings (as managed PostgreSQL offers it), on
 * a free loopback port, forwarding every database name to the PostgreSQL server of `serverUrl`.
 * Only what a pooler needs to run here is set: where it listens, how it authenticates (trust,
 * as the machine's server does) and its pool mode, and any of `settings` (name = value).
 */
export async function startPgBouncer(
  serverUrl: string,
  settings: Record<string, string> = {},
): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'petstore-pgbouncer-'));
  // PgBouncer refuses to run as root; run as `nobody`, which must read these files.
  chmodSync(dir, 0o755);
  const users = join(dir, 'users.txt');
  writeFileSync(users, `"${user}" ""\n`, { mode: 0o644 });
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      ...Object.entries(settings).map(([name, value]) => `${name} = ${value}`),
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child = spawn(PGBOUNCER_BIN, [...(asRoot ? ['-u', 'nobody'] : []), ini], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4_000);
  });
  await untilListening(child, () => log);
  return {
    pooled: (url) => {
      const pooled = new URL(url);
      pooled.hostname = '127.0.0.1';
      pooled.port = String(port);
      return pooled.toString();
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once PgBouncer logs that it listens; rejects if it exits or takes too long. */
function untilListening(
  child: ChildProcessByStdio<null, null, Readable>,
  log: () => string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      fail(new Error(`pgbouncer did not listen:\n${log()}`));
    }, START_TIMEOUT_MS);
    const onData = () => {
      if (!log().includes('listening on 127.0.0.1')) return;
      done();
      resolve();
    };
    const onExit = () => {
      fail(new Error(`pgbouncer exited at start:\n${log()}`));
    };
    const done = () => {
      clearTimeout(timer);
      child.stderr.off('data', onData);
      child.off('exit', onExit);
    };
    const fail = (error: Error) => {
      done();
      reject(error);
    };
    // After the helper's own listener, so log() already holds the chunk.
    child.stderr.on('data', onData);
    child.once('exit', onExit);
  });
}
