import { describe, expect, it } from 'vitest';
import { readingsAfter } from '../../db/replicas/readings-after.js';

/** A reading that answers how many readings were started before it, after `ms`. */
function countingReading(ms: number) {
  let started = 0;
  const read = async () => {
    const number = ++started;
    await new Promise((resolve) => setTimeout(resolve, ms));
    return number;
  };
  return { read, started: () => started };
}

describe('readingsAfter (the position a replica read answers with)', () => {
  it('answers every call with a reading started after it, one in flight at a time', async () => {
    const { read, started } = countingReading(20);
    const after = readingsAfter(read);
    const first = [after(), after(), after()];
    expect(started()).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started()).toBe(1);
    // Made while the first reading is in flight: answered by the next one, sent when it ends.
    const second = [after(), after()];
    expect(await Promise.all(first)).toEqual([1, 1, 1]);
    expect(await Promise.all(second)).toEqual([2, 2]);
    expect(started()).toBe(2);
    expect(await after()).toBe(3);
  });

  it('passes a failed reading to the calls it answers, and reads again for later ones', async () => {
    let fail = true;
    const after = readingsAfter(() =>
      fail ? Promise.reject(new Error('gone')) : Promise.resolve(7),
    );
    await expect(after()).rejects.toThrow('gone');
    fail = false;
    expect(await after()).toBe(7);
  });
});
