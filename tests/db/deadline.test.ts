import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DatabaseBudget } from '../../db/deadline.js';

const hang = () => new Promise<never>(() => undefined);
const after = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(resolve, ms, value));

describe('DatabaseBudget', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers what the work answers and leaves no timer behind', async () => {
    await expect(new DatabaseBudget(1_000).within(() => Promise.resolve(42))).resolves.toBe(42);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails as the work fails and leaves no timer behind', async () => {
    const failure = new Error('connection reset');
    const budget = new DatabaseBudget(1_000);
    await expect(budget.within(() => Promise.reject(failure))).rejects.toBe(failure);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives up once the budget is spent, while the work still hangs', async () => {
    const outcome = expect(new DatabaseBudget(1_000).within(() => hang())).rejects.toMatchObject({
      code: 'DATABASE_DEADLINE',
      message: 'The database did not answer within 1000 ms',
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await outcome;
  });

  it('gives later work only what earlier work left, and never charges the time between', async () => {
    const budget = new DatabaseBudget(1_000);
    const lookup = budget.within(() => after(600, 'key'));
    await vi.advanceTimersByTimeAsync(600);
    await expect(lookup).resolves.toBe('key');
    // A slow client uploads its body: the database is not waited on, so nothing is spent.
    await vi.advanceTimersByTimeAsync(10_000);
    const operation = expect(budget.within(() => hang())).rejects.toMatchObject({
      code: 'DATABASE_DEADLINE',
    });
    await vi.advanceTimersByTimeAsync(399);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await operation;
  });

  it('charges work that runs at the same time once', async () => {
    const budget = new DatabaseBudget(1_000);
    const calls = [budget.within(() => after(700, 'a')), budget.within(() => after(700, 'b'))];
    await vi.advanceTimersByTimeAsync(700);
    await expect(Promise.all(calls)).resolves.toEqual(['a', 'b']);
    const last = budget.within(() => after(250, 'c'));
    await vi.advanceTimersByTimeAsync(250);
    await expect(last).resolves.toBe('c');
  });

  it('cancels what is registered once spent, and nothing that was unregistered', async () => {
    const budget = new DatabaseBudget(1_000);
    const cancelled: string[] = [];
    const outcome = expect(
      budget.within(async () => {
        budget.onSpent(() => cancelled.push('running'));
        const forget = budget.onSpent(() => cancelled.push('finished'));
        forget();
        await after(1_500, 'late');
      }),
    ).rejects.toMatchObject({ code: 'DATABASE_DEADLINE' });
    await vi.advanceTimersByTimeAsync(1_000);
    await outcome;
    expect(budget.spent).toBe(true);
    expect(cancelled).toEqual(['running']);
    budget.onSpent(() => cancelled.push('after'));
    expect(cancelled).toEqual(['running', 'after']);
  });
});
