import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ChildServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** SIGKILL: no shutdown hook runs, as in a crash. */
  kill(): Promise<void>;
}

function listeningAddress(line: string): string | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; address?: unknown };
    return entry.msg === 'listening' && typeof entry.address === 'string'
      ? entry.address
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The real entry point (server/main.ts) in a process of its own, on a port the OS picks
 * (PORT=0; the address is read from the "listening" log line), configured only by `env`.
 */
export async function spawnServer(env: Record<string, string>): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  // Every line is read, listening or not, so a full pipe never blocks the child's logging.
  const lines = createInterface({ input: child.stdout });
  const origin = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      const address = listeningAddress(line);
      if (address) resolve(address);
    });
    void exited.then(([code]) => {
      reject(new Error(`server exited (${String(code)}) before listening:\n${stderr}`));
    });
  });
  return {
    origin,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
