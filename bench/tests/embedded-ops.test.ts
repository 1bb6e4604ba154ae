import { describe, expect, it } from 'vitest';
import { timeInterleaved } from '../embedded-ops.js';

describe('timeInterleaved', () => {
  it('gives two equal targets equal medians on a machine that slows down as it runs', async () => {
    // Each request takes longer than the one before: other processes taking the cores over.
    let clock = 0;
    const samples = await timeInterleaved(['10k', '1M'], 100, () => Promise.resolve(++clock));
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length / 2] ?? 0;
    const [small = [], large = []] = samples;
    expect(small).toHaveLength(100);
    expect(large).toHaveLength(100);
    // One size after the other, the second would have measured 100 more: twice the first.
    expect(Math.abs(median(large) - median(small))).toBeLessThanOrEqual(1);
  });

  it('takes turns starting each round, so neither target always follows the other', async () => {
    const order: string[] = [];
    await timeInterleaved(['a', 'b'], 2, (target) => {
      order.push(target);
      return Promise.resolve(0);
    });
    expect(order).toEqual(['a', 'b', 'b', 'a']);
  });
});
