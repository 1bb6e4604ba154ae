import { runCommand } from './run-command.js';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../db/client.js';
import { holdsDatabase } from '../db/embedded/folder.js';
import { writeBackup } from '../server/surfaces/admin/backup.js';
import type { ExitCode } from '../server/surfaces/admin/keys-commands.js';
import { loadConfig } from '../server/process/config.js';
import { runOnEmbedded } from './keys/embedded.js';

const USAGE = `usage: npm run db:backup -- FILE

Copies the embedded database (PGLITE_DIR) into FILE, a gzipped tar, while the service runs
(it makes the copy) or not. On PostgreSQL use pg_dump (docs/operations.md).
`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [target, ...extra] = positionals;
  if (target === undefined || extra.length > 0) {
    process.stderr.write(USAGE);
    return 2;
  }
  const config = loadConfig();
  if (config.DATABASE_URL) {
    process.stderr.write(
      'DATABASE_URL is set: back PostgreSQL up with pg_dump (docs/operations.md).\n',
    );
    return 2;
  }
  const file = resolve(target);
  const dataDir = config.PGLITE_DIR;
  const out = {
    stdout: (text: string) => process.stdout.write(text),
    stderr: (text: string) => process.stderr.write(text),
  };
  // No service runs: open the folder here, holding its admin socket as `npm run keys` does.
  const runHere = async (): Promise<ExitCode> => {
    if (!holdsDatabase(dataDir)) {
      out.stderr(`${dataDir} holds no embedded database.\n`);
      return 1;
    }
    const database = await openDatabase({ kind: 'pglite', dataDir });
    try {
      if (!database.backup) throw new Error('the embedded database cannot be backed up');
      const answer = await writeBackup(database.backup, file);
      out.stdout(answer.stdout);
      out.stderr(answer.stderr);
      return answer.code;
    } finally {
      await database.close();
    }
  };
  return runOnEmbedded(['backup', file], runHere, dataDir, out);
}

await runCommand(main);
