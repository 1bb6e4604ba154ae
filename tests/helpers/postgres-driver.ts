import { connect, type Socket } from 'node:net';
import postgres from 'postgres';
import { postgresTarget } from './database.js';

/**
 * The copy of postgres.js Node loads, the ES module (the package's `import` export), which
 * patches/postgres+3.4.9.patch fixes: the service, its tools and drizzle-kit load no other
 * (patches/README.md).
 */
export const POSTGRES_DRIVERS = { 'ES module': postgres };

/**
 * postgres.js's `socket` option (README: "Custom socket", missing from its types): each
 * connection's socket goes to `opened`, in order, so a test can fail one at a chosen moment.
 */
function socketsTo(url: URL, opened: (socket: Socket) => void) {
  return () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(url.port || 5432), url.hostname, () => {
        resolve(socket);
      });
      socket.once('error', reject);
      opened(socket);
    });
}

/**
 * One connection at a time to the test server, through sockets the test holds (in the order
 * they opened) and may fail; `onOpen` sees each before its first write.
 */
export function tracedConnection(
  connectTo: typeof postgres,
  options: { backoff?: () => number; onOpen?: (socket: Socket, index: number) => void } = {},
) {
  const sockets: Socket[] = [];
  const url = new URL(postgresTarget().url);
  // A variable, not a literal in the call: `socket` is not in postgres.js's option types.
  const driverOptions = {
    max: 1,
    connect_timeout: 2,
    onnotice: () => undefined,
    ...(options.backoff && { backoff: options.backoff }),
    socket: socketsTo(url, (socket) => {
      options.onOpen?.(socket, sockets.length);
      sockets.push(socket);
    }),
  };
  const sql = connectTo(url.toString(), driverOptions);
  return { sql, sockets };
}

/** The error a reset connection reports. */
export const connectionReset = () => Object.assign(new Error('reset'), { code: 'ECONNRESET' });
