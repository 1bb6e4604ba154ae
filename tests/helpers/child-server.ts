import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START_TIMEOUT_MS = 60_000;

export interface ChildServer {
  process: ChildProcess;
  pid: number;
  origin: string;
  /** Everything the server wrote to stderr and stdout so far (start-up warnings, logs). */
  output(): string;
  /** Resident memory of the process now (VmRSS), in MiB. */
  rssMiB(): number;
  /** SIGKILL: no shutdown hook, no flush; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the graceful exit. */
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => {
        resolve(port);
      });
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
}

async function waitUntilHealthy(origin: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`server exited with ${child.exitCode} before listening:\n${output()}`);
    }
    try {
      const response = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server did not become healthy within ${START_TIMEOUT_MS} ms:\n${output()}`);
}

/**
 * The real entry point (`node --import tsx server/main.ts`) in a process of its own, so a test
 * can SIGKILL it and measure its memory. `env` is added to a minimal environment.
 */
export async function startChildServer(env: Record<string, string>): Promise<ChildServer> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    // Bounded: a chatty server must not grow the test's memory without limit.
    output = (output + chunk.toString('utf8')).slice(-64 * 1024);
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const origin = `http://127.0.0.1:${port}`;
  const server: ChildServer = {
    process: child,
    pid: child.pid ?? 0,
    origin,
    output: () => output,
    rssMiB: () => {
      const status = readFileSync(`/proc/${child.pid ?? 0}/status`, 'utf8');
      const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN);
      return Math.round(kib / 1024);
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
  try {
    await waitUntilHealthy(origin, child, () => output);
  } catch (error) {
    await server.kill();
    throw error;
  }
  return server;
}
