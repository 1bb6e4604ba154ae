import { runCommand } from './run-command.js';
import { loadConfig } from '../server/process/config.js';
import { openConfiguredDatabase } from '../server/process/database.js';
import { parseKeysCli, type CliDeps } from '../server/surfaces/admin/keys-commands.js';
import { runOnEmbedded } from './keys/embedded.js';

/** `npm run keys -- <command>`: operators' tool for API keys, on the service's own database. */
const argv = process.argv.slice(2);

async function main(): Promise<number> {
  const command = parseKeysCli(argv);
  const deps: CliDeps = {
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
  };
  // Help and usage errors need no configuration, let alone a database.
  if (!command.needsDatabase) return command.run(deps);
  const config = loadConfig();
  if (config.DATABASE_URL) return command.run(deps);
  return runOnEmbedded(argv, () => command.run(deps), config.PGLITE_DIR, deps);
}

await runCommand(main);
