import { randomUUID } from 'node:crypto';
import type DataLoader from 'dataloader';
import { burstLoader } from '../../../db/batch-turns.js';
import type { Database } from '../../../db/database.js';
import { toError } from '../../../db/errors.js';
import {
  releaseAllStreamSlots,
  releaseStreamSlots,
  renewStreamSlots,
  takeStreamSlots,
  type HeldSlot,
} from '../../../db/queries/stream-slots.js';

/** A lease not renewed for this long is free again: how long a process that died keeps its slots. */
export const SLOT_LEASE_SECONDS = 15;
const RENEW_EVERY_MS = 5_000;

/**
 * This process's share of the per-key stream limit, counted in the database across processes
 * and instances: each open stream holds a leased slot, renewed while the process lives.
 *
 * Acquires and releases go in batches, one batch in flight at a time, one statement per key in
 * a batch: a thousand browsers of one front-end's key that reconnect at once (a server
 * restarted, a network back) would otherwise queue a thousand transactions on the key's lock,
 * each holding a pooled connection, and every other query of the process behind them. Opens
 * of many keys at once still cost a transaction per key, as before.
 */
export class StreamSlots {
  private readonly holder = randomUUID();
  private held = 0;
  private renewal: NodeJS.Timeout | undefined;
  /**
   * Releases under way. An acquire waits for them: it would otherwise count a slot still being
   * given back and refuse a client whose previous stream had just closed.
   */
  private readonly releasing = new Set<Promise<void>>();
  private readonly takes: DataLoader<string, number | null>;
  private readonly releases: DataLoader<HeldSlot, undefined>;

  constructor(
    private readonly db: Database,
    /** Streams one key may hold open, across every process. */
    private readonly limit: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.takes = burstLoader((keyIds) => this.takeBatch(keyIds));
    // A failed release is said once for its batch; its leases run out unless renewed.
    this.releases = burstLoader(async (slots) => {
      await releaseStreamSlots(this.db, this.holder, slots).catch(this.onError);
      return slots.map(() => undefined);
    });
  }

  /** A slot of `keyId`'s limit, as the function that gives it back; undefined when none is free. */
  async acquire(keyId: string): Promise<(() => void) | undefined> {
    await Promise.allSettled([...this.releasing]);
    const slot = await this.takes.load(keyId);
    if (slot === null) return undefined;
    this.hold(1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const done = this.releases.load({ keyId, slot }).finally(() => {
        this.releasing.delete(done);
        this.hold(-1);
      });
      this.releasing.add(done);
    };
  }

  /** Gives back every slot at once (shutdown); leases of a process that died expire instead. */
  async close(): Promise<void> {
    clearInterval(this.renewal);
    this.renewal = undefined;
    await Promise.allSettled([...this.releasing]);
    await releaseAllStreamSlots(this.db, this.holder);
  }

  /** One statement per key for the acquires of a batch, in the order they asked. */
  private async takeBatch(keyIds: readonly string[]): Promise<(number | null | Error)[]> {
    const results: (number | null | Error)[] = keyIds.map(() => null);
    const asking = new Map<string, number[]>();
    keyIds.forEach((keyId, index) => {
      const indexes = asking.get(keyId);
      if (indexes) indexes.push(index);
      else asking.set(keyId, [index]);
    });
    await Promise.all(
      [...asking].map(async ([keyId, indexes]) => {
        try {
          const slots = await takeStreamSlots(this.db, {
            keyId,
            limit: this.limit,
            count: indexes.length,
            holder: this.holder,
            ttlSeconds: SLOT_LEASE_SECONDS,
          });
          slots.forEach((slot, i) => (results[indexes[i] as number] = slot));
        } catch (error) {
          for (const index of indexes) results[index] = toError(error);
        }
      }),
    );
    return results;
  }

  /** Renews the leases only while this process holds some. */
  private hold(change: number): void {
    this.held += change;
    if (this.held > 0 && !this.renewal) {
      this.renewal = setInterval(() => {
        renewStreamSlots(this.db, this.holder, SLOT_LEASE_SECONDS).catch(this.onError);
      }, RENEW_EVERY_MS);
      this.renewal.unref();
    } else if (this.held === 0 && this.renewal) {
      clearInterval(this.renewal);
      this.renewal = undefined;
    }
  }
}
