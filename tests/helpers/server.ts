import { Writable } from 'node:stream';
import { createApp, type App, type HttpTimeouts } from '../../server/app.js';
import { createLogger } from '../../server/logger.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { loadConformance, type Conformance } from './conformance.js';
import { createApiClient, type ApiClient } from './api-client.js';

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
  close(): Promise<void>;
}

export interface TestServerOptions {
  apiKeys?: string[];
  /** A database the test made itself (e.g. on a private PostgreSQL); fresh per file otherwise. */
  database?: TestDatabase;
  timeouts?: Partial<HttpTimeouts>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  const app = createApp({
    database: database.handle,
    logger: createLogger('info', sink),
    apiKeys: options.apiKeys ?? [TEST_KEY],
    publicBaseUrl: 'https://api.petstore.test/v1',
    stagingBaseUrl: 'https://staging.petstore.test/v1',
    trustProxy: false,
    timeouts: options.timeouts,
  });
  const address = await app.listen(0, '127.0.0.1');
  const origin = `http://127.0.0.1:${address.port}`;
  const conformance = await loadConformance(origin);
  return {
    app,
    database,
    origin,
    baseUrl: `${origin}/v1`,
    logs,
    conformance,
    api: createApiClient(origin, conformance, TEST_KEY),
    close: async () => {
      await app.close(1_000);
      await database.destroy();
    },
  };
}
