import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Pins to one core when taskset exists, so server and load generator do not share one. */
export function pinned(core: number, command: string, args: string[]): [string, string[]] {
  return [`taskset`, ['-c', String(core), command, ...args]];
}

/** Node's arguments to run one of the bench's own TypeScript files, through tsx. */
export function benchScript(file: string, ...args: string[]): string[] {
  return ['--import', 'tsx', fileURLToPath(new URL(file, import.meta.url)), ...args];
}

/** A child with `env` on top of the bench's own, in `cwd` (the bench's own when unset). */
export function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
): ChildProcess {
  return spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
    ...(cwd ? { cwd } : {}),
  });
}

export function runToJson<T>(command: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as T);
      else reject(new Error(`${command} ${args.join(' ')} exited ${String(code)}`));
    });
  });
}

/** CPU time (user + system) a process has used so far, in seconds; /proc counts in 1/100 s. */
export function cpuSeconds(pid: number): number {
  // The command name (field 2) may hold spaces; the fields after it are space-separated.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU time every PostgreSQL process of the machine has used so far, in seconds. */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') {
        total += cpuSeconds(Number(entry));
      }
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** Resident set size of a process in MiB, from /proc (taskset execs, so the pid is node's). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return kb ? Number(kb) / 1024 : 0;
}

export async function waitUntilAnswering(
  url: string,
  headers: Record<string, string>,
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { headers });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => {
      resolve();
    });
    child.kill('SIGTERM');
  });
}
