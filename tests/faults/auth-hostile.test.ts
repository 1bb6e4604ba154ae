import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { median } from '../helpers/load.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';

/** A long key, so a byte-by-byte comparison would show a measurable prefix effect. */
const LONG_KEY = `psk-long-${'k'.repeat(2_000)}`;
const SAMPLES = 300;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ apiKeys: [TEST_KEY, LONG_KEY] });
});
afterAll(() => server.close());

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

  it('takes as long for a key matching all but its last character as for one matching nothing', async ({
    annotate,
  }) => {
    const nearly = flip(LONG_KEY, LONG_KEY.length - 1);
    const nothing = flip(LONG_KEY, 0).replace(/k/g, 'q');
    const timings: Record<'nearly' | 'nothing', number[]> = { nearly: [], nothing: [] };
    for (let i = 0; i < SAMPLES; i++) {
      // Interleaved, so drift in the machine's load hits both sides alike.
      for (const [label, key] of [
        ['nearly', nearly],
        ['nothing', nothing],
      ] as const) {
        const started = performance.now();
        const response = await fetch(`${server.origin}/v1/pets`, {
          headers: { authorization: `Bearer ${key}` },
        });
        await response.arrayBuffer();
        timings[label].push(performance.now() - started);
        expect(response.status).toBe(401);
      }
    }
    const nearlyMs = median(timings.nearly);
    const nothingMs = median(timings.nothing);
    await annotate(
      `median 401 latency: ${nearlyMs.toFixed(3)} ms (all but the last of 2,009 characters match), ${nothingMs.toFixed(3)} ms (nothing matches)`,
    );
    // A loopback round trip varies by far more than a SHA-256 compare; 25% (or 0.2 ms) of noise
    // is allowed, while a prefix-dependent comparison of 2 KB would not hide in it.
    expect(Math.abs(nearlyMs - nothingMs)).toBeLessThan(Math.max(0.2, 0.25 * nothingMs));
  }, 120_000);
});
