import { createRequire } from 'node:module';
import { connect, type Socket } from 'node:net';
import postgres from 'postgres';

/**
 * Both copies of postgres.js the package installs for Node, each patched by
 * patches/postgres+3.4.9.patch: the ES module the service uses and the CommonJS one.
 */
export const POSTGRES_DRIVERS = {
  'ES module': postgres,
  CommonJS: createRequire(import.meta.url)('postgres') as typeof postgres,
};

/** `promise`, or a failure after `ms`: a promise that never settles fails the test, not the run. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`not settled within ${ms} ms`));
    }, ms);
  });
  return Promise.race([promise, late]).finally(() => {
    clearTimeout(timer);
  });
}

/**
 * postgres.js's `socket` option (README: "Custom socket", missing from its types): each
 * connection's socket goes to `opened`, in order, so a test can fail one at a chosen moment.
 */
export function socketsTo(url: URL, opened: (socket: Socket) => void) {
  return () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(url.port || 5432), url.hostname, () => {
        resolve(socket);
      });
      socket.once('error', reject);
      opened(socket);
    });
}

/** The error a reset connection reports. */
export const connectionReset = () => Object.assign(new Error('reset'), { code: 'ECONNRESET' });
