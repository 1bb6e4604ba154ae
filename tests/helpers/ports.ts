import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';
/**
 * The first port the system may give an outgoing connection as its local port (Linux's
 * default; other systems start higher).
 */
const EPHEMERAL_FROM = existsSync(RANGE_FILE)
  ? Number(readFileSync(RANGE_FILE, 'utf8').trim().split(/\s+/)[0])
  : 32_768;
const LOWEST = 10_000;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => {
      resolve(false);
    });
    probe.listen(port, '127.0.0.1', () => {
      probe.close(() => {
        resolve(true);
      });
    });
  });
}

/**
 * A port no one listens on, below the ephemeral range: a port chosen now and listened on later
 * (a service restarted on its port, a database that comes back) must not be one the system
 * may meanwhile give an outgoing connection, as a port from `listen(0)` may be. A test that
 * opens a thousand connections made that a failure (EADDRINUSE on the return).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = LOWEST + Math.floor(Math.random() * (EPHEMERAL_FROM - LOWEST));
    if (await canListen(port)) return port;
  }
}
