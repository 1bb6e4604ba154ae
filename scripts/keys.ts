import { ConfigError, loadConfig } from '../server/process/config.js';
import { openConfiguredDatabase } from '../server/process/database.js';
import { runKeysCli } from './keys/cli.js';

/** `npm run keys -- <command>`: operators' tool for API keys, on the service's own database. */
const exitCode = await runKeysCli(process.argv.slice(2), {
  withDatabase: async (use) => {
    const config = loadConfig();
    const database = await openConfiguredDatabase(config, 1);
    try {
      if (config.MIGRATE_ON_START) await database.migrate();
      return await use(database.db);
    } finally {
      await database.close();
    }
  },
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).catch((error: unknown) => {
  process.stderr.write(
    error instanceof ConfigError
      ? `${error.message}\n`
      : `Failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  return error instanceof ConfigError ? 78 : 1;
});
process.exitCode = exitCode;
