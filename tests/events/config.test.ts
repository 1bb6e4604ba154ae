import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/process/config.js';
import { ConfigError } from '../../server/support/errors.js';

describe('EVENTS_RETENTION and EVENT_STREAMS_PER_KEY', () => {
  it('default to 7 days and 20 streams', () => {
    const config = loadConfig({});
    expect(config.EVENTS_RETENTION).toBe(7 * 86_400);
    expect(config.EVENT_STREAMS_PER_KEY).toBe(20);
  });

  it.each([
    ['30d', 30 * 86_400],
    ['36h', 36 * 3_600],
    ['90m', 5_400],
    ['60s', 60],
  ])('reads EVENTS_RETENTION=%s in seconds', (text, seconds) => {
    expect(loadConfig({ EVENTS_RETENTION: text }).EVENTS_RETENTION).toBe(seconds);
  });

  it.each(['59s', '7', '7 days', '1w', '-1d'])('refuses EVENTS_RETENTION=%s', (text) => {
    expect(() => loadConfig({ EVENTS_RETENTION: text })).toThrow(ConfigError);
    expect(() => loadConfig({ EVENTS_RETENTION: text })).toThrow(/EVENTS_RETENTION/);
  });

  it('reads EVENT_STREAM_MAX_LAG in seconds, 30 by default, and refuses what is not one', () => {
    expect(loadConfig({}).EVENT_STREAM_MAX_LAG).toBe(30);
    expect(loadConfig({ EVENT_STREAM_MAX_LAG: '5' }).EVENT_STREAM_MAX_LAG).toBe(5);
    for (const text of ['0', '1.5', 'soon']) {
      expect(() => loadConfig({ EVENT_STREAM_MAX_LAG: text })).toThrow(/EVENT_STREAM_MAX_LAG/);
    }
  });

  it('reads EVENT_STREAMS_PER_KEY and refuses what is not a positive count', () => {
    expect(loadConfig({ EVENT_STREAMS_PER_KEY: '3' }).EVENT_STREAMS_PER_KEY).toBe(3);
    for (const text of ['0', '-2', '2.5', 'many']) {
      expect(() => loadConfig({ EVENT_STREAMS_PER_KEY: text })).toThrow(/EVENT_STREAMS_PER_KEY/);
    }
  });
});
