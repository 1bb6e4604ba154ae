import type { Sql } from 'postgres';
import type { RunnerFactory } from '../runner.js';
import { readingsAfter } from './readings-after.js';
import { readStandby, type StandbyReading } from './wal-position.js';

/**
 * `healthy`: it answers reads. `lagging`: its replay delay is past REPLICA_MAX_LAG. `down`:
 * unreachable, refusing, or no standby. Only the background check moves a replica out of
 * `lagging` or `down`.
 */
export type ReplicaState = 'healthy' | 'lagging' | 'down';

/** One hot standby: its connections and what the last reading of it said. */
export class Replica {
  state: ReplicaState = 'down';
  /** Replayed at least this far, in the life `instance`; 0 until the first reading. */
  replayed = 0n;
  instance: string | undefined;
  /** Its replay delay at the last check, in seconds; Infinity until known. */
  lagSeconds = Number.POSITIVE_INFINITY;
  /** A reading sent after the call (readingsAfter): the check of a read that just ended. */
  readonly readAfter: () => Promise<StandbyReading>;

  constructor(
    /** host:port, for logs and metrics: never the URL, which may hold a password. */
    readonly name: string,
    readonly client: Sql,
    readonly runners: RunnerFactory,
  ) {
    this.readAfter = readingsAfter(() => this.read());
  }

  /** Reads its state now, keeping the furthest replay seen in the same life. */
  async read(): Promise<StandbyReading> {
    const reading = await readStandby(this.client);
    if (reading.instance !== this.instance) {
      this.instance = reading.instance;
      this.replayed = reading.replayed;
    } else if (reading.replayed > this.replayed) {
      this.replayed = reading.replayed;
    }
    return reading;
  }

  markDown(): void {
    this.state = 'down';
    this.instance = undefined;
    this.replayed = 0n;
  }
}
