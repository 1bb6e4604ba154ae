import { runCommand } from './run-command.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { restorePglite } from '../db/embedded/backup.js';
import { folderEntries } from '../db/embedded/folder.js';
import { adminSocketPath } from '../server/surfaces/admin/protocol.js';
import { claimAdminSocket } from '../server/surfaces/admin/socket.js';
import { loadConfig } from '../server/process/config.js';

const USAGE = `usage: npm run db:restore -- FILE [--dir FOLDER]

Creates the embedded database from FILE, a copy made by npm run db:backup, in FOLDER
(default: PGLITE_DIR), which must be empty or absent: a restore never overwrites a database.
Then start the service with PGLITE_DIR=FOLDER. On PostgreSQL use pg_restore (docs/operations.md).
`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { dir: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [source, ...extra] = positionals;
  if (source === undefined || extra.length > 0) {
    process.stderr.write(USAGE);
    return 2;
  }
  const config = loadConfig();
  if (config.DATABASE_URL && values.dir === undefined) {
    process.stderr.write(
      'DATABASE_URL is set: restore PostgreSQL with pg_restore (docs/operations.md).\n',
    );
    return 2;
  }
  const file = resolve(source);
  const dataDir = resolve(values.dir ?? config.PGLITE_DIR);
  if (!existsSync(file)) {
    process.stderr.write(`${file} does not exist.\n`);
    return 1;
  }
  if ((await folderEntries(dataDir)).length > 0) {
    process.stderr.write(`${dataDir} is not empty: restore into a new folder.\n`);
    return 1;
  }
  // Held while the database is created, so a service started meanwhile waits for it.
  const path = adminSocketPath(dataDir);
  const held = path
    ? await claimAdminSocket(path, () =>
        Promise.resolve({ code: 1, stdout: '', stderr: 'A restore is creating this database.\n' }),
      )
    : undefined;
  try {
    if ((await folderEntries(dataDir)).length > 0) {
      throw new Error(`${dataDir} was filled by another process meanwhile`);
    }
    await restorePglite(dataDir, file);
  } finally {
    await held?.close();
  }
  process.stdout.write(
    `Restored ${file} into ${dataDir}; start the service with PGLITE_DIR=${dataDir}.\n`,
  );
  return 0;
}

await runCommand(main);
