import { execFile } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';
const COMMAND_TIMEOUT_MS = 60_000;

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  /** Starts (or restarts) the server and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops it the hard way (`-m immediate`: every connection dropped, no checkpoint). */
  stop(): Promise<void>;
  /** SIGSTOP on the server and its backends: connections stay open and nothing answers. */
  freeze(): void;
  thaw(): void;
  /** Stops the server if it runs and removes its folder. */
  destroy(): Promise<void>;
}

/** Root may not run PostgreSQL: its tools run as the `postgres` OS user then. */
function asPostgres(): {
  wrap: (file: string, args: string[]) => [string, string[]];
  owner?: [number, number];
} {
  if (process.getuid?.() !== 0) return { wrap: (file, args) => [file, args] };
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith('postgres:'));
  const [, , uid, gid] = entry?.split(':') ?? [];
  if (!uid || !gid) throw new Error('no postgres OS user to run a private PostgreSQL as');
  return {
    wrap: (file, args) => ['runuser', ['-u', 'postgres', '--', file, ...args]],
    owner: [Number(uid), Number(gid)],
  };
}

function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent; the name (field 2) may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] ?? -1) ?? []));
  return tree;
}

type Tool = (name: string, args: string[]) => Promise<unknown>;

function tools(): { tool: Tool; owner?: [number, number] } {
  const user = asPostgres();
  return {
    tool: (name, args) => {
      const [file, argv] = user.wrap(join(BIN, name), args);
      return run(file, argv, { timeout: COMMAND_TIMEOUT_MS });
    },
    ...(user.owner && { owner: user.owner }),
  };
}

/** A temporary folder for one server, owned by whoever runs it. */
function serverFolder(owner: [number, number] | undefined) {
  const root = mkdtempSync(join(tmpdir(), 'petstore-pg-'));
  const socketDir = join(root, 'socket');
  mkdirSync(socketDir);
  if (owner) {
    chownSync(root, ...owner);
    chownSync(socketDir, ...owner);
  }
  return { root, data: join(root, 'data'), socketDir };
}

export interface PrivatePostgresOptions {
  /** Server settings given at every start (`-c name=value`), such as recovery_min_apply_delay. */
  settings?: Record<string, string>;
}

/** Starts the server of a data folder made by initdb or pg_basebackup, or removes the folder. */
async function serve(
  tool: Tool,
  folder: ReturnType<typeof serverFolder>,
  options: PrivatePostgresOptions,
): Promise<PrivatePostgres> {
  const { root, data, socketDir } = folder;
  const port = await freePort();
  const settings = Object.entries(options.settings ?? {})
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join('');
  const serverOptions = `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50${settings}`;
  let running = false;
  const ctl = (...args: string[]) => tool('pg_ctl', ['-D', data, '-w', '-t', '30', ...args]);
  const postmasterPid = () =>
    Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const signalAll = (signal: NodeJS.Signals) => {
    for (const pid of processTree(postmasterPid())) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone already
      }
    }
  };

  const server: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: async () => {
      await ctl('-o', serverOptions, '-l', join(root, 'log'), 'start');
      running = true;
    },
    stop: async () => {
      await ctl('-m', 'immediate', 'stop');
      running = false;
    },
    freeze: () => {
      signalAll('SIGSTOP');
    },
    thaw: () => {
      signalAll('SIGCONT');
    },
    destroy: async () => {
      if (running) {
        server.thaw();
        await server.stop();
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return server;
}

/**
 * A PostgreSQL server of the test's own, in a temporary folder on a free loopback port, so a
 * test can stop, crash or freeze it. Never the machine's shared server.
 */
export async function startPrivatePostgres(
  options: PrivatePostgresOptions = {},
): Promise<PrivatePostgres> {
  const { tool, owner } = tools();
  const folder = serverFolder(owner);
  await tool('initdb', [
    '-D',
    folder.data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  return serve(tool, folder, options);
}

/**
 * A hot standby of `primary` (a private server): `pg_basebackup -R` into a folder of its own,
 * streaming from the primary from then on, on a free port of its own.
 */
export async function startStandby(
  primary: PrivatePostgres,
  options: PrivatePostgresOptions = {},
): Promise<PrivatePostgres> {
  const { tool, owner } = tools();
  const folder = serverFolder(owner);
  const { port } = new URL(primary.url);
  await tool('pg_basebackup', [
    ...['-D', folder.data, '-h', '127.0.0.1', '-p', port, '-U', 'postgres'],
    ...['-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
  ]);
  return serve(tool, folder, options);
}
