import { describe, expect, it } from 'vitest';
import { burstLoader, loaderInTurns } from '../../db/batch-turns.js';

/** A batch function whose batches the test finishes by hand, recording each one's keys. */
function heldBatches() {
  const batches: { keys: readonly number[]; finish: (value: string) => void }[] = [];
  const batch = (keys: readonly number[]) =>
    new Promise<string[]>((resolve) => {
      batches.push({
        keys,
        finish: (value) => {
          resolve(keys.map(() => value));
        },
      });
    });
  return { batches, batch };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('loaderInTurns', () => {
  it('gathers the loads made while a batch runs into the next, which starts after it', async () => {
    const { batches, batch } = heldBatches();
    const loader = burstLoader(batch);
    const first = loader.load(1);
    await nextTurn();
    const later = [loader.load(2), loader.load(3)];
    await nextTurn();
    // The second batch waits for the first: a read in it starts after both loads asked.
    expect(batches.map((b) => b.keys)).toEqual([[1]]);
    batches[0]?.finish('first read');
    await nextTurn();
    expect(batches.map((b) => b.keys)).toEqual([[1], [2, 3]]);
    batches[1]?.finish('second read');
    expect(await first).toBe('first read');
    expect(await Promise.all(later)).toEqual(['second read', 'second read']);
  });

  it('gathers the loads of one turn of the event loop in a burst loader', async () => {
    const { batches, batch } = heldBatches();
    const loader = burstLoader(batch);
    // Separate callbacks of one turn, as separate requests are, each followed by a drain of the
    // microtasks. Immediates, not timers: two timers set one after the other may fall due a
    // millisecond apart, in different turns, on a busy machine.
    const loads = await new Promise<Promise<string>[]>((resolve) => {
      const made: Promise<string>[] = [];
      setImmediate(() => {
        made.push(loader.load(1));
      });
      setImmediate(() => {
        made.push(loader.load(2));
        resolve(made);
      });
    });
    await nextTurn();
    expect(batches.map((b) => b.keys)).toEqual([[1, 2]]);
    batches[0]?.finish('read');
    expect(await Promise.all(loads)).toEqual(['read', 'read']);
  });

  it('gives its turn back when a batch function throws before its first await', async () => {
    let calls = 0;
    const loader = loaderInTurns<number, number>(
      (keys) => {
        calls++;
        if (calls === 1) throw new Error('refused at once');
        return Promise.resolve(keys.map((key) => key * 10));
      },
      { inFlight: 1 },
    );
    await expect(loader.load(1)).rejects.toThrow('refused at once');
    expect(await loader.load(2)).toBe(20);
  });
});
