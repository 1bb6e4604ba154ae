import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Whether deliveries may go to this address: only globally routable unicast ones, as
 * ipaddr.js classifies them. Loopback, private, link-local (the cloud metadata address among
 * them), unique-local, multicast, unspecified and the reserved ranges are refused, and an
 * IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
}

export class ForbiddenAddressError extends Error {
  readonly code = 'EWEBHOOKADDRESS';
  constructor(host: string) {
    super(`${host} resolves to an address webhooks are not sent to`);
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for the sockets deliveries connect on: it resolves every address of the name and
 * refuses them all if any is not public, so the check holds on the address actually connected
 * to, whatever the name resolved to at registration.
 */
export function publicOnlyLookup(
  hostname: string,
  options: { all?: boolean },
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { all: true }, (error, addresses) => {
    if (error) {
      callback(error, []);
      return;
    }
    const [first] = addresses;
    if (!first || !addresses.every((entry) => isPublicAddress(entry.address))) {
      callback(new ForbiddenAddressError(hostname), []);
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  });
}

/** Every address a URL's host is or resolves to; [] when it does not resolve. */
export async function addressesOf(hostname: string): Promise<string[]> {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(host)) return [host];
  return new Promise((resolve) => {
    dnsLookup(host, { all: true }, (error, addresses) => {
      resolve(error ? [] : addresses.map((entry) => entry.address));
    });
  });
}
