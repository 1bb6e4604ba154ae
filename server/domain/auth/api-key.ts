import { hash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Key format, in the manner of GitHub's tokens: `psk_<id>_<secret><checksum>`.
 * The prefix makes a leaked key easy to find by secret scanners, the id (public) names the key
 * in listings, the secret carries ~190 bits of randomness, and the CRC32 checksum lets a typo
 * be refused before any database lookup.
 */
const PREFIX = 'psk_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 8;
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(
  `^${PREFIX}([0-9A-Za-z]{${ID_LENGTH}})_([0-9A-Za-z]{${SECRET_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET.charAt(randomInt(ALPHABET.length));
  return out;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET.charAt(value % 62) + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export interface GeneratedKey {
  id: string;
  key: string;
}

export function generateApiKey(): GeneratedKey {
  const id = randomBase62(ID_LENGTH);
  const body = `${PREFIX}${id}_${randomBase62(SECRET_LENGTH)}`;
  return { id, key: body + checksum(body) };
}

/** The key's public id when it is well formed and its checksum holds; otherwise undefined. */
export function parseApiKey(key: string): string | undefined {
  const match = KEY_PATTERN.exec(key);
  if (!match?.[1] || !match[3]) return undefined;
  return checksum(key.slice(0, -CHECKSUM_LENGTH)) === match[3] ? match[1] : undefined;
}

export function hashApiKey(key: string): string {
  // One-shot: no Hash object per request for the garbage collector to finalise.
  return hash('sha256', key, 'hex');
}

/** Constant-time comparison of two hex SHA-256 digests. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
