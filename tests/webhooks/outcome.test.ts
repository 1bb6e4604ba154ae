import { describe, expect, it } from 'vitest';
import { judgeAttempt } from '../../server/webhooks/domain/outcome.js';
import {
  DEFAULT_RETRY_DELAYS,
  nextRetryIn,
  parseRetryDelays,
  retryAfterSeconds,
} from '../../server/webhooks/domain/schedule.js';

const ok = (status: number, retryAfter?: string) => ({ status, retryAfter, error: null });

describe('the retry schedule', () => {
  it('reads WEBHOOK_RETRY_DELAYS', () => {
    expect(parseRetryDelays('1s,2s,4s')).toEqual([1, 2, 4]);
    expect(parseRetryDelays('500ms, 5m,2h')).toEqual([0.5, 300, 7200]);
    expect(parseRetryDelays('1s,,2s')).toBeUndefined();
    expect(parseRetryDelays('soon')).toBeUndefined();
  });

  it('waits each delay ±20%, then runs out', () => {
    for (const [index, delay] of DEFAULT_RETRY_DELAYS.entries()) {
      const wait = nextRetryIn(index + 1, DEFAULT_RETRY_DELAYS) ?? 0;
      expect(wait).toBeGreaterThanOrEqual(delay * 0.8);
      expect(wait).toBeLessThanOrEqual(delay * 1.2);
    }
    expect(nextRetryIn(DEFAULT_RETRY_DELAYS.length + 1, DEFAULT_RETRY_DELAYS)).toBeUndefined();
  });

  it('honours Retry-After in seconds or as a date, at most an hour', () => {
    expect(retryAfterSeconds('120')).toBe(120);
    expect(retryAfterSeconds('999999')).toBe(3600);
    const now = Date.parse('2026-11-27T12:00:00Z');
    expect(retryAfterSeconds('Fri, 27 Nov 2026 12:10:00 GMT', now)).toBe(600);
    expect(retryAfterSeconds('garbage')).toBe(0);
  });
});

describe('an attempt judged', () => {
  const delays = [1, 2];

  it('succeeds on 2xx', () => {
    expect(judgeAttempt(ok(204), 1, delays).outcome.status).toBe('succeeded');
  });

  it('fails for good and disables on 410', () => {
    expect(judgeAttempt(ok(410), 1, delays)).toMatchObject({
      outcome: { status: 'failed' },
      disable: true,
    });
  });

  it('retries 5xx, 3xx and network errors until the schedule runs out', () => {
    expect(judgeAttempt(ok(500), 1, delays).outcome.status).toBe('pending');
    expect(judgeAttempt(ok(302), 2, delays).outcome).toMatchObject({
      status: 'pending',
      error: 'redirect, not followed',
    });
    const refused = { status: null, error: 'ECONNREFUSED' };
    expect(judgeAttempt(refused, 3, delays).outcome.status).toBe('failed');
  });

  it('waits at least Retry-After on 429 and 503, not on 500', () => {
    expect(judgeAttempt(ok(429, '600'), 1, delays).outcome.retryInSeconds).toBe(600);
    expect(judgeAttempt(ok(503, '600'), 1, delays).outcome.retryInSeconds).toBe(600);
    expect(judgeAttempt(ok(500, '600'), 1, delays).outcome.retryInSeconds).toBeLessThan(2);
  });
});
