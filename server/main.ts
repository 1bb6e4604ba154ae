import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { runPrimary } from './process/cluster.js';
import { CONFIG_VARIABLES, loadConfig } from './process/config.js';
import { createLogger } from './support/logger.js';
import { serve } from './process/serve.js';
import { exitOnStartFailure } from './process/start-failure.js';

const USAGE = `Usage: npm start [-- --help]
       node dist/server/main.js [--help]

Starts the Pet Store service: REST under /v1, tRPC under /trpc, the API reference at /docs.
It takes no arguments; it is configured by environment variables (docs/operations.md):
  ${CONFIG_VARIABLES.join(', ')}

Options:
  -h, --help  print this and exit
`;

/** sysexits.h: the command was used incorrectly. */
const EX_USAGE = 64;

/** True when the command line asks for help; an argument it does not know ends the process. */
function helpRequested(): boolean {
  try {
    const { values } = parseArgs({ options: { help: { type: 'boolean', short: 'h' } } });
    return values.help === true;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(EX_USAGE);
  }
}

async function main(): Promise<void> {
  if (helpRequested()) {
    process.stdout.write(USAGE);
    return;
  }
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  if (cluster.isPrimary && config.WORKERS > 1) await runPrimary(config, logger);
  else await serve(config, logger);
}

main().catch(exitOnStartFailure);
