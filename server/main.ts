import cluster from 'node:cluster';
import { runPrimary } from './process/cluster.js';
import { ConfigError, loadConfig } from './process/config.js';
import { createLogger } from './process/logger.js';
import { serve } from './process/serve.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  if (cluster.isWorker) return serve(config, logger, { prepare: false });
  if (config.WORKERS > 1) return runPrimary(config, logger);
  return serve(config, logger, { prepare: true });
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
