import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** OpenTelemetry's recommended boundaries for `http.server.request.duration`, in seconds. */
const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

/**
 * Requests whose database work is pending. postgres.js does not expose its pool, so the pool's
 * use is inferred from this count: each request's database work (DatabaseBudget) holds at most
 * one connection at a time, except a tRPC batch's calls, which may hold several and count once.
 */
export class DatabaseWork {
  active = 0;
  /** Milliseconds with some request pending since the window began. */
  private busyMs = 0;
  private changedAt: number;
  private windowFrom: number;

  /** `startedAt` on the clock enter, leave and takeBusyShare are given. */
  constructor(startedAt = performance.now()) {
    this.changedAt = startedAt;
    this.windowFrom = startedAt;
  }

  enter(at: number): void {
    this.accrue(at);
    this.active++;
  }

  leave(at: number): void {
    this.accrue(at);
    this.active--;
  }

  /**
   * The share of the time since the last call (0 to 1) during which some request was pending
   * on the database; starts the next window.
   */
  takeBusyShare(at: number): number {
    this.accrue(at);
    const span = at - this.windowFrom;
    const share = span > 0 ? this.busyMs / span : Math.min(this.active, 1);
    this.busyMs = 0;
    this.windowFrom = at;
    return share;
  }

  private accrue(at: number): void {
    if (this.active > 0) this.busyMs += at - this.changedAt;
    this.changedAt = at;
  }
}

/**
 * The service's Prometheus metrics, one registry per app so that tests can run several apps in
 * one process. Served only on the metrics listener (server/process/metrics-server.ts).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly databaseWork = new DatabaseWork();

  readonly requestDuration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests, by method, route template, operation (operationId, tRPC procedure or public route) and status code',
    labelNames: [
      'http_request_method',
      'http_route',
      'operation',
      'http_response_status_code',
    ] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  readonly openStreams = new Gauge({
    name: 'petstore_event_streams_open',
    help: 'Event streams open (REST and tRPC subscriptions)',
    registers: [this.registry],
  });

  readonly eventsDelivered = new Counter({
    name: 'petstore_events_delivered_total',
    help: 'Events handed to event streams for writing to their clients',
    registers: [this.registry],
  });

  readonly streamsCutOff = new Counter({
    name: 'petstore_event_streams_cut_off_total',
    help: 'Event streams closed by the service for falling too far behind',
    registers: [this.registry],
  });

  readonly rateLimitRefusals = new Counter({
    name: 'petstore_rate_limit_refusals_total',
    help: "Requests refused (429) because the API key's rate limit was spent",
    registers: [this.registry],
  });

  readonly authRefusals = new Counter({
    name: 'petstore_authentication_refusals_total',
    help: 'Requests refused authentication, by reason: missing, invalid or repeated key (401), or an address past AUTH_FAILURE_LIMIT (429)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor(poolSize: number) {
    const work = this.databaseWork;
    new Gauge({
      name: 'petstore_database_requests_in_flight',
      help: 'Requests with database work pending (a tRPC batch counts once)',
      registers: [this.registry],
      collect() {
        this.set(work.active);
      },
    });
    new Gauge({
      name: 'petstore_database_pool_in_use',
      help: 'Connections of the pool in use, estimated as the requests with database work pending, at most the pool size; background work (event feed, retention) is not counted',
      registers: [this.registry],
      collect() {
        this.set(Math.min(work.active, poolSize));
      },
    });
    new Gauge({
      name: 'petstore_database_pool_waiting',
      help: 'Requests waiting for a connection, estimated as the requests with database work pending beyond the pool size',
      registers: [this.registry],
      collect() {
        this.set(Math.max(0, work.active - poolSize));
      },
    });
    new Gauge({
      name: 'petstore_database_pool_size',
      help: 'Connections the pool may open (DATABASE_POOL_MAX; 1 on the embedded database)',
      registers: [this.registry],
      collect() {
        this.set(poolSize);
      },
    });
  }
}
