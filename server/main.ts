import { openDatabase } from '../db/client.js';
import { createApp } from './app.js';
import { ensureApiKey } from './auth/bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const database = await openDatabase(
    config.DATABASE_URL
      ? { kind: 'postgres', url: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX }
      : { kind: 'pglite', dataDir: config.PGLITE_DIR },
  );
  if (database.kind === 'pglite' && !config.PGLITE_DIR.includes('://')) {
    // PGlite runs PostgreSQL with fsync off and its Node file system cannot fsync: a commit is in
    // the kernel's page cache when acknowledged, so it survives the process dying, not the machine.
    logger.warn(
      { dataDir: config.PGLITE_DIR },
      'embedded database: acknowledged writes survive a crash of this process but not an OS crash or power loss; set DATABASE_URL to use PostgreSQL where they must',
    );
  }
  if (config.MIGRATE_ON_START) await database.migrate();
  const issued = await ensureApiKey(database, config.API_KEYS);
  if (issued) {
    // Straight to the terminal, never to the log: this is the only time the secret is shown.
    process.stderr.write(
      `\nIssued the first API key (${issued.id}); it is shown only this once:\n\n    ${issued.key}\n\n` +
        `Call the service with:  Authorization: Bearer ${issued.key}\n\n`,
    );
  }

  const app = createApp({
    database,
    logger,
    apiKeys: config.API_KEYS,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    stagingBaseUrl: config.STAGING_BASE_URL,
    trustProxy: config.TRUST_PROXY,
  });
  const address = await app.listen(config.PORT, config.HOST);
  logger.info(
    { address: `http://${address.address}:${address.port}`, database: database.kind },
    'listening',
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void app
      .close(SHUTDOWN_GRACE_MS)
      .then(() => database.close())
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  process.stderr.write(
    `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
