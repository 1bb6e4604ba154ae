import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from './ports.js';

export interface TestRedis {
  url: string;
  /** Stops the server (it can be started again on the same port). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers, as with a hung or swapping host. */
  freeze(): void;
  thaw(): void;
}

const READY_TIMEOUT_MS = 10_000;

/** Resolves once the server says it accepts connections; rejects with its output otherwise. */
function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not become ready in ${READY_TIMEOUT_MS} ms:\n${output}`));
    }, READY_TIMEOUT_MS);
    const settle = (error?: Error) => {
      clearTimeout(timer);
      // Keep draining its output so a full pipe never stalls the server.
      child.stdout.removeAllListeners('data').resume();
      if (error) reject(error);
      else resolve(child);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      settle(
        error.code === 'ENOENT'
          ? new Error(
              'redis-server is not installed or not on PATH; the rate-limit tests need it ' +
                '(Debian/Ubuntu: apt-get install redis-server)',
            )
          : error,
      );
    });
    child.once('exit', (code) => {
      settle(new Error(`redis-server exited with ${String(code)} before it was ready:\n${output}`));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) {
        child.removeAllListeners('exit');
        settle();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
  });
}

/** A private redis-server on a free port, nothing persisted, for one test file. */
export async function startTestRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    start: async () => {
      child ??= await launch(port);
    },
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    stop: async () => {
      const running = child;
      running?.kill('SIGCONT');
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = once(running, 'exit');
      running.kill('SIGTERM');
      await exited;
    },
  };
}
