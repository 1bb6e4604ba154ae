import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { createApp, type Api, type App, type AppOptions } from '../../server/process/app.js';
import type { HttpTimeouts } from '../../server/process/http-server.js';
import { createLogger } from '../../server/support/logger.js';
import type { RateLimitSetting } from '../../server/domain/rate-limit/policy.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { loadConformance, type Conformance } from './conformance.js';
import { createHttpClients, type ApiClient, type TrpcClient } from './http.js';

export const TEST_KEY = 'test-key-write';

export interface TestServer {
  app: App;
  database: TestDatabase;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** REST base address, ending in /v1 */
  baseUrl: string;
  /** Every log line the server wrote, parsed. */
  logs: Record<string, unknown>[];
  conformance: Conformance;
  /** REST calls, each response checked against the served OpenAPI document. */
  api: ApiClient;
  /** Raw tRPC calls (one procedure, not batched), each response checked likewise. */
  trpc: TrpcClient;
  close(): Promise<void>;
}

/** High enough that no other test meets it, so every test still sees the RateLimit fields. */
const TEST_RATE_LIMIT: RateLimitSetting = { limit: 100_000, windowSeconds: 60 };

export interface TestServerOptions {
  /** Serve these procedures instead of the service's own. */
  api?: Api;
  /** Leave `database` open on close(), for another server that shares it. */
  keepDatabase?: boolean;
  apiKeys?: string[];
  rateLimit?: RateLimitSetting;
  /** Failed authentications per address; by default too many for any test but its own. */
  authFailureLimit?: RateLimitSetting;
  redisUrl?: string;
  /** Serve this database instead of a fresh one; the server's close() destroys it. */
  database?: TestDatabase;
  corsOrigins?: string[];
  trustProxy?: boolean;
  /** Lowered by tests that prove slow clients are cut off. */
  timeouts?: Partial<HttpTimeouts>;
  /** False serves every `/trpc` call through tRPC's own adapter, to compare with the fast path. */
  trpcFastPath?: boolean;
  maxBatchCalls?: number;
  /** Event streams one key may hold open (the app's eventStreamsPerKey). */
  eventStreamsPerKey?: number;
  /** How long events are kept, in seconds (the app's eventRetentionSeconds). */
  eventRetentionSeconds?: number;
  /** Events queued for one stream at most (the app's eventStreamBuffer). */
  eventStreamBuffer?: number;
  /** Seconds a stream may stay behind after its queue overflowed (the app's eventStreamMaxLagSeconds). */
  eventStreamMaxLagSeconds?: number;
  /** How long a stream ticket stays valid, in seconds (the app's eventTicketTtlSeconds). */
  eventTicketTtlSeconds?: number;
  /** The app's webhook settings (tests allow loopback and shorten the schedule). */
  webhooks?: AppOptions['webhooks'];
}

/** A log destination that keeps every line, parsed: a line that is not JSON fails the test. */
export function logSink(): { sink: Writable; logs: Record<string, unknown>[] } {
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { sink, logs };
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  const { sink, logs } = logSink();
  const app = createApp({
    api: options.api,
    database: database.handle,
    logger: createLogger('info', sink),
    apiKeys: options.apiKeys ?? [TEST_KEY],
    publicBaseUrl: 'https://api.petstore.test/v1',
    stagingBaseUrl: 'https://staging.petstore.test/v1',
    trustProxy: options.trustProxy ?? false,
    rateLimit: options.rateLimit ?? TEST_RATE_LIMIT,
    authFailureLimit: options.authFailureLimit ?? TEST_RATE_LIMIT,
    redisUrl: options.redisUrl,
    corsOrigins: options.corsOrigins ?? [],
    timeouts: options.timeouts,
    trpcFastPath: options.trpcFastPath,
    maxBatchCalls: options.maxBatchCalls,
    eventStreamsPerKey: options.eventStreamsPerKey,
    eventRetentionSeconds: options.eventRetentionSeconds,
    eventStreamBuffer: options.eventStreamBuffer,
    eventStreamMaxLagSeconds: options.eventStreamMaxLagSeconds,
    eventTicketTtlSeconds: options.eventTicketTtlSeconds,
    webhooks: options.webhooks,
  });
  const address = await app.listen(0, '127.0.0.1');
  const origin = `http://127.0.0.1:${address.port}`;
  const conformance = await loadConformance(origin, options.api?.operations);
  return {
    app,
    database,
    origin,
    baseUrl: `${origin}/v1`,
    logs,
    conformance,
    ...createHttpClients(origin, conformance, TEST_KEY),
    close: async () => {
      await app.close(1_000);
      if (!options.keepDatabase) await database.destroy();
    },
  };
}

/**
 * A server for the whole test file: started before its first test, closed after its last.
 * The returned object stands for it once started.
 */
export function useTestServer(
  options: TestServerOptions | (() => Promise<TestServerOptions>) = {},
): TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(typeof options === 'function' ? await options() : options);
  });
  afterAll(() => server?.close());
  return new Proxy({} as TestServer, {
    get(_target, property) {
      if (!server) throw new Error('the test server is used before beforeAll started it');
      return Reflect.get(server, property) as unknown;
    },
  });
}
