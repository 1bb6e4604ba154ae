import { loadConfig } from '../server/process/config.js';
import { openConfiguredDatabase } from '../server/process/database.js';

/** `npm run db:migrate`: applies drizzle/ to the configured database, for operators who migrate separately. */
const config = loadConfig();
const database = await openConfiguredDatabase(config, 1);
try {
  await database.migrate();
  process.stdout.write(`Migrations applied (${database.kind}).\n`);
} finally {
  await database.close();
}
