import type { IncomingMessage } from 'node:http';

/**
 * The address a request came from, as one budget counts it. Behind a trusted proxy that is the
 * last `X-Forwarded-For` entry, the one the proxy itself appended (earlier entries are the
 * client's to write); otherwise the connection's peer. An IPv6 address stands for its /64, the
 * block one subscriber is usually given, so that rotating through it does not buy new budgets.
 * Not proxy-addr: it parses every entry, the client's own too, to reach the one needed here
 * (55 µs against 0.13 for 7.8 kB of them; docs/performance.md, "Hand-written HTTP pieces").
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const header = trustProxy ? req.headers['x-forwarded-for'] : undefined;
  // Node joins repeated X-Forwarded-For lines with ", ", as a proxy would.
  const forwarded = Array.isArray(header) ? header.join(',') : header;
  const last = forwarded?.slice(forwarded.lastIndexOf(',') + 1).trim();
  return blockOf(last || req.socket.remoteAddress || 'unknown');
}

function blockOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
