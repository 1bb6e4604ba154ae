import type { Sql } from 'postgres';
import type { DatabaseBudget } from '../deadline.js';
import type { Transactor } from '../runner.js';
import { readingsAfter } from './readings-after.js';
import { withinTime } from '../within-time.js';
import type { Replica, ReplicaState } from './replica.js';
import { readPrimaryPosition } from './wal-position.js';

export interface ReplicaTiming {
  /** REPLICA_MAX_LAG: how old a read without a position may be. */
  maxLagMs: number;
  /** REPLICA_WAIT: how long a read with a position may wait for a replica to replay that far. */
  waitMs: number;
  /** How often the primary's position and every replica are read in the background. */
  checkMs: number;
}

/** A read a replica was chosen for. */
export interface ReplicaRead {
  replica: Replica;
  /** The request's statements on the replica, bounded by its budget. */
  runner: Transactor;
  /**
   * After the read: the position it was served at, or undefined when it may be older than
   * promised (the replica restarted since it was chosen) or the replica stopped answering.
   */
  confirm(): Promise<bigint | undefined>;
}

export interface ReplicaStatus {
  name: string;
  state: ReplicaState;
  lagSeconds: number;
}

/** Polling step while reads wait for a replica to replay their position. */
const WAIT_STEP_MS = 2;
/** A reading that takes longer marks its replica down: a frozen server must not hold reads. */
const READING_TIMEOUT_MS = 1_000;

interface Sample {
  at: number;
  position: bigint;
}

interface Waiter {
  atLeast: bigint;
  resolve: (replica: Replica | undefined) => void;
}

/**
 * The hot standbys reads may go to, and what decides which one: the primary's WAL position
 * sampled in the background beside each replica's replay, so that a replica's replay delay is
 * known to within a check, and a read that names a position goes only where it was replayed.
 * Nothing here runs a check on a request's behalf but the reading after a read (the position
 * it answers with) and the short wait a position may ask for.
 */
export class ReadReplicas {
  /** Primary positions of the last checks, oldest first. */
  private readonly samples: Sample[] = [];
  private readonly waiters = new Set<Waiter>();
  private polling = false;
  private turn = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly servedCounts = new Map<string, number>();
  private readonly fallbackCounts = new Map<string, number>();
  /** The primary's position read after the call: the position of a write that just committed. */
  readonly primaryPosition: () => Promise<bigint>;

  constructor(
    private readonly primary: Sql,
    readonly replicas: readonly Replica[],
    private readonly timing: ReplicaTiming,
  ) {
    this.primaryPosition = readingsAfter(() => readPrimaryPosition(primary));
  }

  /** Starts the background checks; the first runs at once. */
  start(): void {
    const loop = () => {
      void this.check().finally(() => {
        if (this.closed) return;
        this.timer = setTimeout(loop, this.timing.checkMs);
        this.timer.unref();
      });
    };
    loop();
  }

  stop(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const waiter of this.waiters) waiter.resolve(undefined);
    this.waiters.clear();
  }

  /** One background check: the primary's position, then every replica's. */
  async check(): Promise<void> {
    const sampled = await withinTime(readPrimaryPosition(this.primary), READING_TIMEOUT_MS).then(
      (position) => {
        this.samples.push({ at: performance.now(), position });
        this.forgetOldSamples();
        return true;
      },
      () => false,
    );
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica, sampled)));
  }

  private forgetOldSamples(): void {
    const horizon = performance.now() - this.timing.maxLagMs - 4 * this.timing.checkMs;
    while (this.samples.length > 2 && (this.samples[1]?.at ?? 0) < horizon) this.samples.shift();
  }

  /**
   * Without a fresh sample of the primary (it does not answer) a replica's delay cannot be
   * told, and its state stays as it was rather than turning `lagging` for the primary's sake.
   */
  private async checkReplica(replica: Replica, sampled: boolean): Promise<void> {
    try {
      await withinTime(replica.read(), READING_TIMEOUT_MS);
    } catch {
      replica.markDown();
      return;
    }
    if (!sampled && replica.state !== 'down') return;
    replica.lagSeconds = this.ageMs(replica.replayed, performance.now()) / 1000;
    replica.state = replica.lagSeconds * 1000 <= this.timing.maxLagMs ? 'healthy' : 'lagging';
  }

  /**
   * How old data replayed to `replayed` can be now: it holds everything the primary had at the
   * latest sample it has reached.
   */
  private ageMs(replayed: bigint, now: number): number {
    for (let i = this.samples.length - 1; i >= 0; i--) {
      const sample = this.samples[i];
      if (sample && sample.position <= replayed) return now - sample.at;
    }
    return Number.POSITIVE_INFINITY;
  }

  /** The next healthy replica, in turn, that `ready` accepts: reads spread over them. */
  private pick(ready: (replica: Replica) => boolean): Replica | undefined {
    const count = this.replicas.length;
    for (let i = 0; i < count; i++) {
      const replica = this.replicas[(this.turn + i) % count];
      if (replica?.state === 'healthy' && ready(replica)) {
        this.turn = (this.turn + i + 1) % count;
        return replica;
      }
    }
    return undefined;
  }

  /**
   * A replica for a read that has seen `atLeast` (a position the client sent), or that may be
   * REPLICA_MAX_LAG old when it sent none; undefined: the primary's.
   */
  async route(
    atLeast: bigint | undefined,
    budget: DatabaseBudget,
  ): Promise<ReplicaRead | undefined> {
    const now = performance.now();
    const replica =
      atLeast === undefined
        ? this.pick((r) => this.ageMs(r.replayed, now) <= this.timing.maxLagMs)
        : (this.pick((r) => r.replayed >= atLeast) ?? (await this.waitFor(atLeast)));
    if (!replica) return undefined;
    const { instance } = replica;
    return {
      replica,
      runner: replica.runners(budget),
      confirm: async () => {
        try {
          const reading = await replica.readAfter();
          return reading.instance === instance ? reading.upperBound : undefined;
        } catch {
          replica.markDown();
          return undefined;
        }
      },
    };
  }

  /** Up to REPLICA_WAIT for a healthy replica to replay `atLeast`. */
  private waitFor(atLeast: bigint): Promise<Replica | undefined> {
    if (this.timing.waitMs <= 0 || !this.replicas.some((r) => r.state === 'healthy')) {
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        atLeast,
        resolve: (replica) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(replica);
        },
      };
      const timer = setTimeout(() => {
        waiter.resolve(undefined);
      }, this.timing.waitMs);
      this.waiters.add(waiter);
      void this.pollForWaiters();
    });
  }

  /** One reading of each healthy replica at a time, shared by every read that waits. */
  private async pollForWaiters(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      while (this.waiters.size > 0) {
        const healthy = this.replicas.filter((r) => r.state === 'healthy');
        if (healthy.length === 0) break;
        await Promise.all(
          healthy.map((r) => withinTime(r.read(), READING_TIMEOUT_MS).catch(() => undefined)),
        );
        for (const waiter of this.waiters) {
          const replica = this.pick((r) => r.replayed >= waiter.atLeast);
          if (replica) waiter.resolve(replica);
        }
        if (this.waiters.size > 0) await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
      }
    } finally {
      this.polling = false;
    }
    for (const waiter of this.waiters) waiter.resolve(undefined);
  }

  /** Counts a read by where it was served: a replica's name or `primary`. */
  served(target: string): void {
    this.servedCounts.set(target, (this.servedCounts.get(target) ?? 0) + 1);
  }

  /** Counts a read that a replica was chosen for and the primary answered, by why. */
  fellBack(reason: 'failed' | 'restarted'): void {
    this.fallbackCounts.set(reason, (this.fallbackCounts.get(reason) ?? 0) + 1);
  }

  status(): ReplicaStatus[] {
    return this.replicas.map(({ name, state, lagSeconds }) => ({ name, state, lagSeconds }));
  }

  counts(): { served: ReadonlyMap<string, number>; fallbacks: ReadonlyMap<string, number> } {
    return { served: this.servedCounts, fallbacks: this.fallbackCounts };
  }
}
