import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReadReplicas } from '../../db/replicas/read-replicas.js';
import type { ReplicaState } from '../../db/replicas/replica.js';

const STATES: readonly ReplicaState[] = ['healthy', 'lagging', 'down'];

/**
 * Counters kept by the replica set, reported as they stand: prom-client's counters only add,
 * so each collection adds what was counted since the last.
 */
function reportCounts(counter: Counter, label: string, counts: ReadonlyMap<string, number>) {
  const reported = new Map<string, number>();
  return () => {
    for (const [value, count] of counts) {
      counter.inc({ [label]: value }, count - (reported.get(value) ?? 0));
      reported.set(value, count);
    }
  };
}

/** The metrics of DATABASE_REPLICA_URLS (docs/replicas.md), on the app's registry. */
export function registerReplicaMetrics(registry: Registry, replicas: ReadReplicas): void {
  new Gauge({
    name: 'petstore_replica_lag_seconds',
    help: "A replica's replay delay at its last check, known to within a check (250 ms at most); +Inf while down",
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const { name, lagSeconds } of replicas.status()) this.set({ replica: name }, lagSeconds);
    },
  });
  new Gauge({
    name: 'petstore_replica_state',
    help: "1 for a replica's current state (healthy, lagging, down), 0 for the others",
    labelNames: ['replica', 'state'],
    registers: [registry],
    collect() {
      for (const { name, state } of replicas.status()) {
        for (const each of STATES) this.set({ replica: name, state: each }, each === state ? 1 : 0);
      }
    },
  });
  const { served, fallbacks } = replicas.counts();
  const reads: Counter = new Counter({
    name: 'petstore_replica_reads_total',
    help: 'Reads a replica may serve, by where they were served: a replica, or primary',
    labelNames: ['target'],
    registers: [registry],
    collect: () => {
      reportReads();
    },
  });
  const reportReads = reportCounts(reads, 'target', served);
  const fellBack: Counter = new Counter({
    name: 'petstore_replica_fallbacks_total',
    help: 'Reads tried on a replica and served by the primary: the replica failed, or restarted meanwhile',
    labelNames: ['reason'],
    registers: [registry],
    collect: () => {
      reportFallbacks();
    },
  });
  const reportFallbacks = reportCounts(fellBack, 'reason', fallbacks);
}
