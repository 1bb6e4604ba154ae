import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../db/client.js';
import { createContextInner } from '../operations/context.js';
import { createLogger } from '../support/logger.js';
import { createCaller } from '../surfaces/trpc/router.js';
import { createApp } from './app.js';
import { emptyFolderArchive } from './database.js';

/** The service in the caller's own process, on a database that lives in its memory. */
export interface InProcessService {
  /** Every procedure, called directly as the key's holder (write scope), without HTTP. */
  caller: ReturnType<typeof createCaller>;
  /** `http://127.0.0.1:<port>/v1`, for REST clients. */
  baseUrl: string;
  /** `http://127.0.0.1:<port>/trpc`, for tRPC clients. */
  trpcUrl: string;
  /** The one key the service accepts, as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Stops serving and drops the database. */
  close(): Promise<void>;
}

/**
 * The service as `npm start` composes it (createApp on a migrated database), for consumers'
 * tests: an in-memory embedded database filled from the build's migrated archive, a random key,
 * no rate limit, no logs, on a port the system chooses on 127.0.0.1.
 */
export async function startInProcess(): Promise<InProcessService> {
  const dataDir = 'memory://';
  const archive = await emptyFolderArchive(dataDir);
  const database = await openDatabase({ kind: 'pglite', dataDir, ...(archive && { archive }) });
  try {
    await database.migrate();
    const apiKey = `test_${randomBytes(24).toString('base64url')}`;
    const app = createApp({
      database,
      logger: createLogger('silent'),
      apiKeys: [apiKey],
      publicBaseUrl: 'http://127.0.0.1/v1',
      trustProxy: false,
      rateLimit: 'off',
      authFailureLimit: 'off',
    });
    const { port } = await app.listen(0, '127.0.0.1');
    const origin = `http://127.0.0.1:${port}`;
    const principal = await app.authenticator.authenticate(apiKey);
    const ctx = createContextInner({ db: database.db, principal, baseUrl: `${origin}/v1` });
    return {
      caller: createCaller(ctx),
      baseUrl: `${origin}/v1`,
      trpcUrl: `${origin}/trpc`,
      apiKey,
      close: async () => {
        await app.close(1_000);
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
