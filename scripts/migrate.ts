import { openDatabase } from '../db/client.js';
import { loadConfig } from '../server/config.js';

/** `npm run db:migrate`: applies drizzle/ to the configured database, for operators who migrate separately. */
const config = loadConfig();
const database = await openDatabase(
  config.DATABASE_URL
    ? { kind: 'postgres', url: config.DATABASE_URL, poolMax: 1 }
    : { kind: 'pglite', dataDir: config.PGLITE_DIR },
);
try {
  await database.migrate();
  process.stdout.write(`Migrations applied (${database.kind}).\n`);
} finally {
  await database.close();
}
