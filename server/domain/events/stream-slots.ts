import { randomUUID } from 'node:crypto';
import type { Database } from '../../../db/database.js';
import {
  releaseAllStreamSlots,
  releaseStreamSlot,
  renewStreamSlots,
  takeStreamSlot,
} from '../../../db/queries/stream-slots.js';

/** A lease not renewed for this long is free again: how long a process that died keeps its slots. */
export const SLOT_LEASE_SECONDS = 15;
const RENEW_EVERY_MS = 5_000;

/**
 * This process's share of the per-key stream limit, counted in the database across processes
 * and instances: each open stream holds a leased slot, renewed while the process lives.
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

  constructor(
    private readonly db: Database,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A slot of `keyId`'s `limit`, as the function that gives it back; undefined when none is free. */
  async acquire(keyId: string, limit: number): Promise<(() => void) | undefined> {
    await Promise.allSettled([...this.releasing]);
    const slot = await takeStreamSlot(this.db, {
      keyId,
      limit,
      holder: this.holder,
      ttlSeconds: SLOT_LEASE_SECONDS,
    });
    if (slot === undefined) return undefined;
    this.hold(1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const done = releaseStreamSlot(this.db, { keyId, slot, holder: this.holder })
        .catch(this.onError)
        .finally(() => {
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
