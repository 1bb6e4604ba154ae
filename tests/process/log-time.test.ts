import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../server/support/logger.js';
import { logSink } from '../helpers/server.js';

afterEach(() => {
  vi.useRealTimers();
});

/** server/support/logger.ts formats the date once per second and appends each line's milliseconds. */
describe('the time of a log line', () => {
  it('is the ISO 8601 instant it was written, to the millisecond, across seconds and days', async () => {
    const { sink, logs } = logSink();
    const logger = createLogger('info', sink);
    const instants = [
      '2026-11-22T01:02:03.007Z',
      '2026-11-22T01:02:03.090Z',
      '2026-11-22T01:02:03.999Z',
      '2026-11-22T01:02:04.000Z',
      '2026-11-22T23:59:59.999Z',
      '2026-11-23T00:00:00.001Z',
    ];
    vi.useFakeTimers({ toFake: ['Date'] });
    for (const instant of instants) {
      vi.setSystemTime(new Date(instant));
      logger.info({ instant });
    }
    vi.useRealTimers();
    logger.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(logs.map((line) => line.time)).toEqual(instants);
  });
});
