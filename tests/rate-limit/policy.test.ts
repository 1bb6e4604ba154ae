import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/process/config.js';
import { ConfigError } from '../../server/support/errors.js';
import { parseRateLimit, rateLimitFields } from '../../server/domain/rate-limit/policy.js';

describe('parseRateLimit', () => {
  it.each([
    ['600/60s', { limit: 600, windowSeconds: 60 }],
    ['100/1m', { limit: 100, windowSeconds: 60 }],
    ['5000/1h', { limit: 5000, windowSeconds: 3600 }],
    [' OFF ', 'off'],
  ])('reads %j', (text, expected) => {
    expect(parseRateLimit(text)).toEqual(expected);
  });

  it.each(['', '600', '600/60', '0/60s', '600/0s', '-1/60s', '1.5/60s', '600/60d', 'on'])(
    'refuses %j',
    (text) => {
      expect(parseRateLimit(text)).toBeUndefined();
    },
  );
});

describe('RATE_LIMIT and REDIS_URL configuration', () => {
  it('limits by default to 600 requests per minute, counted in process', () => {
    const config = loadConfig({});
    expect(config.RATE_LIMIT).toEqual({ limit: 600, windowSeconds: 60 });
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('accepts off and a redis:// URL', () => {
    const config = loadConfig({ RATE_LIMIT: 'off', REDIS_URL: 'redis://127.0.0.1:6380' });
    expect(config.RATE_LIMIT).toBe('off');
    expect(config.REDIS_URL).toBe('redis://127.0.0.1:6380');
  });

  it('names RATE_LIMIT and the expected form when it cannot be read', () => {
    expect(() => loadConfig({ RATE_LIMIT: 'lots' })).toThrow(ConfigError);
    expect(() => loadConfig({ RATE_LIMIT: 'lots' })).toThrow(
      /RATE_LIMIT="lots": expected .* 600\/60s/,
    );
  });

  it('refuses a REDIS_URL that is not redis:// or rediss://', () => {
    expect(() => loadConfig({ REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/REDIS_URL/);
  });
});

describe('rateLimitFields', () => {
  it('writes the structured fields of draft-ietf-httpapi-ratelimit-headers', () => {
    expect(rateLimitFields({ limit: 600, windowSeconds: 60 }, 599, 42)).toEqual({
      'ratelimit-policy': '"default";q=600;w=60',
      ratelimit: '"default";r=599;t=42',
    });
  });
});
