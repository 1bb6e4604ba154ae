import { connect, type Socket } from 'node:net';
import postgres from 'postgres';
import type { StatementMode } from './runner.js';

/** postgres.js's documented custom socket (its README, "Custom socket"), absent from its types. */
type CustomSocketOptions = postgres.Options<Record<string, never>> & {
  socket: (options: { host: string[]; port: number[] }) => Promise<Socket>;
};

/** How often to ask again while the database does not answer. */
const RETRY_MS = 5_000;

/**
 * Whether the server sees this very TCP connection: the client port it reports is the local
 * port of our socket. A pooler (or any proxy) in between connects from a port of its own. Only
 * then are statements safe to prepare by name: behind a pooler in transaction mode a named
 * statement may be missing on the next server connection, and postgres.js, pipelining queries
 * behind the failed one, can wait forever for their answers. A Unix socket proves nothing
 * (the server reports no port), so it keeps statements unnamed.
 */
export async function reachesServerDirectly(url: string): Promise<boolean> {
  let local: number | undefined;
  const options: CustomSocketOptions = {
    max: 1,
    connect_timeout: 5,
    onnotice: () => undefined,
    socket: ({ host: [host], port: [port] }) =>
      new Promise<Socket>((resolve, reject) => {
        const socket = connect(port ?? 5432, host ?? 'localhost');
        socket.once('connect', () => {
          local = socket.localPort;
          resolve(socket);
        });
        socket.once('error', reject);
      }),
  };
  const probe = postgres(url, options);
  try {
    const [row] = await probe<{ port: number | null }[]>`select inet_client_port() as port`;
    return row?.port != null && row.port === local;
  } finally {
    await probe.end({ timeout: 1 });
  }
}

/**
 * Lets `mode` prepare statements by name once the server proves it sees our connections
 * directly; until then, and behind a pooler, they stay unnamed. Asks again while the database
 * does not answer. Returns the function that stops asking.
 */
export function preferNamedWhenDirect(url: string, mode: StatementMode): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const ask = () => {
    reachesServerDirectly(url).then(
      (direct) => {
        if (!stopped) mode.prepared = direct;
      },
      () => {
        if (stopped) return;
        timer = setTimeout(ask, RETRY_MS);
        timer.unref();
      },
    );
  };
  ask();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
