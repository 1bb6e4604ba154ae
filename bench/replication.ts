import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = '/usr/lib/postgresql/15/bin';

/** PostgreSQL's tools refuse root: as root they run as the `postgres` OS user. */
function tool(name: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [command, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(BIN, name), ...args]]
    : [join(BIN, name), args];
  execFileSync(command, argv, { stdio: ['ignore', 'ignore', 'inherit'] });
}

function postgresOwner(): [number, number] | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith('postgres:'));
  const [, , uid, gid] = entry?.split(':') ?? [];
  return [Number(uid), Number(gid)];
}

export interface Replication {
  primaryUrl: string;
  standbyUrl: string;
  stop(): void;
}

/**
 * A primary of the bench's own (initdb) and a hot standby streaming from it (`pg_basebackup
 * -R`), on `ports`, in a temporary folder: the machine's server is never touched.
 */
export function startReplication(ports: { primary: number; standby: number }): Replication {
  const root = mkdtempSync(join(tmpdir(), 'petstore-bench-replication-'));
  const owner = postgresOwner();
  if (owner) chownSync(root, ...owner);
  const primary = join(root, 'primary');
  const standby = join(root, 'standby');
  const serve = (data: string, port: number) => {
    tool('pg_ctl', [
      ...['-D', data, '-w', '-l', `${data}.log`, 'start'],
      ...[
        '-o',
        `-p ${String(port)} -k ${root} -c listen_addresses=127.0.0.1 -c max_connections=200`,
      ],
    ]);
  };
  const stopServer = (data: string) => {
    try {
      tool('pg_ctl', ['-D', data, '-m', 'fast', 'stop']);
    } catch {
      // not running
    }
  };
  tool('initdb', ['-D', primary, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  serve(primary, ports.primary);
  tool('pg_basebackup', [
    ...['-D', standby, '-h', '127.0.0.1', '-p', String(ports.primary), '-U', 'postgres'],
    ...['-R', '-X', 'stream', '-c', 'fast'],
  ]);
  serve(standby, ports.standby);
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${String(ports.primary)}/postgres`,
    standbyUrl: `postgres://postgres@127.0.0.1:${String(ports.standby)}/postgres`,
    stop: () => {
      stopServer(standby);
      stopServer(primary);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
