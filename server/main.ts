import cluster from 'node:cluster';
import { runPrimary } from './process/cluster.js';
import { loadConfig } from './process/config.js';
import { createLogger } from './process/logger.js';
import { serve } from './process/serve.js';
import { exitOnStartFailure } from './process/start-failure.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  if (cluster.isPrimary && config.WORKERS > 1) runPrimary(config, logger);
  else await serve(config, logger);
}

main().catch(exitOnStartFailure);
