import type DataLoader from 'dataloader';
import { burstLoader } from '../../../db/batch-turns.js';
import type { Database } from '../../../db/database.js';
import { lastEventId, prunedThrough } from '../../../db/queries/events.js';

/**
 * Where the event log stands, read for the streams that open: the opens that ask at once share
 * one read. A batch's read starts after every open in it asked, so each stream still starts at
 * or after the head as of its request. A thousand browsers reconnecting together would
 * otherwise cost a transaction each on the pool that every other request needs too.
 */
export class LogPosition {
  private readonly heads: DataLoader<0, number>;
  private readonly pruned: DataLoader<0, number>;

  constructor(db: Database) {
    this.heads = shared(() => lastEventId(db));
    this.pruned = shared(() => prunedThrough(db));
  }

  /** The highest event id there is, or 0 (lastEventId). */
  head(): Promise<number> {
    return this.heads.load(0);
  }

  /** The highest event id retention has deleted, or 0. */
  prunedThrough(): Promise<number> {
    return this.pruned.load(0);
  }
}

function shared(read: () => Promise<number>): DataLoader<0, number> {
  return burstLoader<0, number>(async (asks) => {
    const value = await read();
    return asks.map(() => value);
  });
}
