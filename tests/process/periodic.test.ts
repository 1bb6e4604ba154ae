import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runPeriodically } from '../../server/support/periodic.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('runPeriodically', () => {
  const schedule = { firstAfterMs: 1_000, everyMs: 10_000 };

  it('runs first soon after start, then on every interval', async () => {
    const task = vi.fn(() => Promise.resolve());
    const runner = runPeriodically(task, schedule, () => undefined);
    await vi.advanceTimersByTimeAsync(999);
    expect(task).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(task).toHaveBeenCalledTimes(3);
    runner.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(task).toHaveBeenCalledTimes(3);
  });

  it('never runs twice at once, and hands a failure to onError', async () => {
    let fail: (error: Error) => void = () => undefined;
    const task = vi.fn(
      () =>
        new Promise<void>((_resolve, reject) => {
          fail = reject;
        }),
    );
    const onError = vi.fn();
    const runner = runPeriodically(task, schedule, onError);
    await vi.advanceTimersByTimeAsync(31_000);
    expect(task).toHaveBeenCalledTimes(1);
    fail(new Error('down'));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'down' }));
    expect(task).toHaveBeenCalledTimes(2);
    runner.stop();
  });

  it('stopped before its first run, never runs', async () => {
    const task = vi.fn(() => Promise.resolve());
    runPeriodically(task, schedule, () => undefined).stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(task).not.toHaveBeenCalled();
  });
});
