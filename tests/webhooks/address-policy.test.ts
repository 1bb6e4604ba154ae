import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../server/webhooks/domain/address-policy.js';

/** What an attacker with a write key registers to reach the service's own network. */
const REFUSED = [
  // IPv4: loopback, private, shared, link-local (cloud metadata), special and reserved.
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'this network'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'shared address space'],
  ['169.254.169.254', 'cloud metadata'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  // IPv6 outside 2000::/3.
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::2', 'IPv4-compatible'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::7f00:1', 'IPv4-compatible loopback, hex'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['64:ff9b::7f00:1', 'NAT64 of loopback'],
  ['64:ff9b::a00:1', 'NAT64 of private'],
  ['64:ff9b:1::7f00:1', 'local-use NAT64'],
  ['100::1', 'discard-only'],
  ['5f00::1', 'SRv6 SIDs'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['ff05::2', 'multicast'],
  ['4000::1', 'unassigned, outside 2000::/3'],
  ['e000::1', 'unassigned, outside 2000::/3'],
  // IPv6 special-purpose blocks inside 2000::/3.
  ['2001::1', 'Teredo'],
  ['2001:0:4136:e378::1', 'Teredo'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'ORCHID'],
  ['2001:20::1', 'ORCHIDv2'],
  ['2001:db8::1', 'documentation'],
  ['2001:db8:ffff::1', 'documentation'],
  ['2002:7f00:1::1', '6to4 of loopback'],
  ['2002:a00:1::1', '6to4 of private'],
  ['2002:c0a8:101::1', '6to4 of private'],
  ['3fff::10', 'documentation (2024)'],
  ['3fff:fff::1', 'documentation (2024)'],
  // Not addresses at all.
  ['localhost', 'a name'],
  ['0x7f.1', 'loopback in a short hex form'],
  ['2130706433', 'loopback as one number'],
  ['', 'nothing'],
] as const;

const ALLOWED = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '2606:4700:4700::1111',
  '2a00:1450:4001::1',
];

describe('webhook destinations', () => {
  it.each(REFUSED)('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(ALLOWED)('allows the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
