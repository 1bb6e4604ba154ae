import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startNodeFlags } from '../../scripts/start-flags.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const START_TIMEOUT_MS = 60_000;

export type LogLine = Record<string, unknown>;

export interface ChildServer {
  child: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:<port>`, known once a process logged `listening`. */
  origin: string;
  /** Every stdout line, parsed: a line that is not JSON fails the test. */
  logs: LogLine[];
  /** All stdout and stderr, raw, for assertions on what never appears and for diagnosis. */
  output(): string;
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL: no shutdown hook runs, as in a crash. */
  kill(): Promise<void>;
  /** SIGTERM, and wait for the graceful exit. */
  stop(): Promise<void>;
  /** Resident memory of the process now (VmRSS), in MiB. */
  rssMiB(): number;
}

/**
 * The real service (server/main.ts) in a child process, configured only by `env`, on a port
 * the system chooses (PORT=0; the address is read from the "listening" log line). Resolves
 * once `listeners` processes have logged `listening`. Every stdout line is read, so a full
 * pipe never blocks the child's logging.
 */
export async function spawnServer(
  env: Record<string, string>,
  options: {
    listeners?: number;
    /**
     * Resolve at this line instead, before the service listens (then `origin` is known once it
     * logged `listening`): for a test that acts on what a starting service says.
     */
    startedWhen?: (line: LogLine) => boolean;
    /** Start under this umask (`'022'`) rather than the tests' own. */
    umask?: string;
  } = {},
): Promise<ChildServer> {
  const args = [...startNodeFlags(), '--import', 'tsx', 'server/main.ts'];
  // `exec`, so that the child's pid is the service's.
  const [command, commandArgs] = options.umask
    ? ['/bin/sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(command, commandArgs, {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const waiters = new Set<() => void>();
  let raw = '';
  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    raw += chunk;
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) logs.push(JSON.parse(line) as LogLine);
    for (const wake of waiters) wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    raw += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
      for (const wake of waiters) wake();
    });
  });

  const waitForLog = (predicate: (line: LogLine) => boolean, timeoutMs = START_TIMEOUT_MS) =>
    new Promise<LogLine>((resolve, reject) => {
      const check = () => {
        const found = logs.find(predicate);
        const gone = child.exitCode !== null || child.signalCode !== null;
        if (!found && !gone) return;
        clearTimeout(timer);
        waiters.delete(check);
        if (found) resolve(found);
        else reject(new Error(`server exited before the expected log line:\n${raw}`));
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no such log line within ${timeoutMs} ms:\n${raw}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  const listening = () => logs.filter((line) => line.msg === 'listening');
  await waitForLog(options.startedWhen ?? (() => listening().length >= (options.listeners ?? 1)));
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return {
    child,
    pid: child.pid ?? 0,
    get origin() {
      return String(listening()[0]?.address).replace(/^http:\/\/[^:]+/, 'http://127.0.0.1');
    },
    logs,
    output: () => raw,
    waitForLog,
    exited,
    kill: () => signal('SIGKILL'),
    stop: () => signal('SIGTERM'),
    rssMiB: () => {
      const status = readFileSync(`/proc/${child.pid ?? 0}/status`, 'utf8');
      return Math.round(Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN) / 1024);
    },
  };
}

/** Runs the service to completion (for configurations it must refuse). */
export function runChildServer(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    [...startNodeFlags(), '--import', 'tsx', 'server/main.ts'],
    {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      resolve({ code, output });
    });
  });
}

/**
 * The service's first start with a terminal for stdout and stderr (util-linux `script` gives
 * it a pseudo-terminal), stopped once it listens; resolves with everything it wrote there.
 */
export function firstStartOnTerminal(dataDir: string): Promise<string> {
  const command = [process.execPath, ...startNodeFlags(), '--import', 'tsx', 'server/main.ts'];
  const child = spawn('script', ['-qefc', command.join(' '), '/dev/null'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', PGLITE_DIR: dataDir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not listen within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      // Ctrl-C on the terminal: the service stops as it does for a person at the keyboard.
      if (/listening/.test(chunk)) child.stdin.write('\x03');
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

/** Resident memory counts as settled once it moved less than this over the last second. */
const SETTLED_MIB = 4;

/**
 * The server's resident memory once it stopped moving: the baseline of a memory bound. Take it
 * after some work of the kind measured, never right after a start: on Node 24 V8 recompiles the
 * embedded database's hot WebAssembly functions with its optimising compiler once they have run
 * a while, which holds a few hundred MiB for a second or two (none with `--liftoff-only`).
 */
export async function settledRssMiB(server: Pick<ChildServer, 'rssMiB'>): Promise<number> {
  const samples = [server.rssMiB()];
  for (;;) {
    await sleep(250);
    const now = server.rssMiB();
    samples.push(now);
    const secondAgo = samples[samples.length - 5];
    if (secondAgo !== undefined && Math.abs(now - secondAgo) < SETTLED_MIB) return now;
  }
}
