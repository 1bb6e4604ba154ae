/**
 * petstore-service/testing: the service in a consumer's own test process, on an in-memory
 * database, with a typed caller of every procedure and the addresses of both surfaces.
 */
import type { AppRouter } from '../client/router.js';
import { startInProcess } from '../server/process/testing.js';

/**
 * Every procedure, called as the router's own `createCaller` calls it: no HTTP, no client. Its
 * type comes from the published AppRouter (written out in full by the build, client/router.ts),
 * so that these declarations name none of the server's files or packages.
 */
export type PetstoreCaller = ReturnType<AppRouter['createCaller']>;

export interface PetstoreTestService {
  caller: PetstoreCaller;
  /** `http://127.0.0.1:<port>/v1`: give it to `createPetstoreRestClient` or fetch. */
  baseUrl: string;
  /** `http://127.0.0.1:<port>/trpc`: give it to `createPetstoreTrpcClient`. */
  trpcUrl: string;
  /** The one key the service accepts (write scope). */
  apiKey: string;
  /** Stops serving and drops the database. */
  close(): Promise<void>;
}

/**
 * Starts a fresh service, with an empty database of its own, on a free port of 127.0.0.1.
 * Each call is independent: start one per test file, or per test for a clean database.
 */
export function start(): Promise<PetstoreTestService> {
  return startInProcess();
}
