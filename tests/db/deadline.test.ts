import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withDatabaseDeadline } from '../../db/deadline.js';

describe('withDatabaseDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers what the work answers and leaves no timer behind', async () => {
    await expect(withDatabaseDeadline(Promise.resolve(42), 1_000)).resolves.toBe(42);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails as the work fails and leaves no timer behind', async () => {
    const failure = new Error('connection reset');
    await expect(withDatabaseDeadline(Promise.reject(failure), 1_000)).rejects.toBe(failure);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives up once the deadline passes, while the work still hangs', async () => {
    const hanging = withDatabaseDeadline(new Promise<never>(() => undefined), 1_000);
    const outcome = expect(hanging).rejects.toMatchObject({
      code: 'DATABASE_DEADLINE',
      message: 'The database did not answer within 1000 ms',
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await outcome;
  });

  it('keeps the answer of work that settles just before the deadline', async () => {
    const late = new Promise<string>((resolve) => setTimeout(resolve, 999, 'in time'));
    const answer = withDatabaseDeadline(late, 1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(answer).resolves.toBe('in time');
  });
});
