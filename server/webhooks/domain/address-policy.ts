import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** IPv6's global unicast space: everything outside it is not a destination on the internet. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/**
 * Blocks of IANA's IPv6 special-purpose registry inside the global unicast space: the IETF's
 * protocol assignments (Teredo, benchmarking, ORCHID and others), the two documentation
 * prefixes and 6to4, which carries an IPv4 address that may be private.
 */
const SPECIAL_PURPOSE = ['2001::/23', '2001:db8::/32', '2002::/16', '3fff::/20'].map((cidr) =>
  ipaddr.parseCIDR(cidr),
);

/**
 * Whether deliveries may go to this address: an allow-list of globally routable unicast. IPv4
 * as ipaddr.js classifies it (loopback, private, link-local with the cloud metadata address,
 * shared, multicast, unspecified, documentation, benchmarking and reserved refused); an
 * IPv4-mapped IPv6 address as the IPv4 address it carries; any other IPv6 address only inside
 * 2000::/3 and outside its special-purpose blocks, so IPv4-compatible, NAT64, site-local,
 * unique-local, SRv6 and whatever IANA assigns later outside 2000::/3 are refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  return (
    v6.match(GLOBAL_UNICAST) &&
    !SPECIAL_PURPOSE.some((block) => v6.match(block)) &&
    v6.range() === 'unicast'
  );
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
