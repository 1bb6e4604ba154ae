import { describe, expect, it } from 'vitest';
import { TEST_KEY, useTestServer } from '../helpers/server.js';

const server = useTestServer();

const flip = (key: string, at: number) =>
  key.slice(0, at) + (key[at] === 'x' ? 'y' : 'x') + key.slice(at + 1);

describe('hostile API keys', () => {
  it.each([
    ['one character different', flip(TEST_KEY, 5)],
    ['the last character different', flip(TEST_KEY, TEST_KEY.length - 1)],
    ['a different case', TEST_KEY.toUpperCase()],
    ['a prefix of the key', TEST_KEY.slice(0, -1)],
    ['the key twice', TEST_KEY + TEST_KEY],
    // Trailing whitespace is not part of a header value in HTTP (RFC 9110 5.5), so none here.
    ['a tab inside', `${TEST_KEY.slice(0, 4)}\t${TEST_KEY.slice(4)}`],
    ['a space inside', TEST_KEY.replace('-', ' ')],
    ['a very long key', 'k'.repeat(8_000)],
    // Cyrillic "е" (U+0435) for "e", sent as its UTF-8 bytes.
    ['a unicode lookalike', Buffer.from(TEST_KEY.replace('e', '\u0435')).toString('latin1')],
  ])('refuses %s with 401', async (_, key) => {
    const response = await server.api('GET', '/v1/pets', {
      key: null,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(401);
  });
});
