import { runKeysCliCollected } from './keys-commands.js';
import type { DatabaseHandle } from '../../../db/client.js';
import { writeBackup } from './backup.js';
import type { Logger } from '../../support/logger.js';
import { ADMIN_COMMANDS, type AdminAnswer } from './protocol.js';
import {
  AdminSocketInUse,
  claimAdminSocket,
  type AdminHandler,
  type AdminSocket,
} from './socket.js';

/** How long a starting service waits for a keys command that holds the data folder. */
const CLAIM_WAIT_MS = 10_000;
const CLAIM_RETRY_MS = 200;

export interface KeysSocket {
  /** Commands run from now on; those that arrived earlier waited for this. */
  serve(database: DatabaseHandle): void;
  close(): Promise<void>;
}

/**
 * The embedded database's admin socket, on the service's side: `npm run keys` runs its
 * create, list and revoke here, and `npm run db:backup` its backup, with the same command-line code as when it opens the data
 * folder itself, on the service's open database. Claimed before the database is opened, so a
 * keys command or a second service that holds the folder keeps this one from opening it too.
 */
export async function claimKeysSocket(path: string, logger: Logger): Promise<KeysSocket> {
  let serve: (database: DatabaseHandle) => void = () => undefined;
  const ready = new Promise<DatabaseHandle>((resolve) => {
    serve = resolve;
  });
  const handler = async (argv: string[], signal: AbortSignal): Promise<AdminAnswer> => {
    const [command, ...rest] = argv;
    if (command === undefined || !ADMIN_COMMANDS.includes(command)) {
      return {
        code: 2,
        stdout: '',
        stderr: 'The service runs only create, list, revoke and backup.\n',
      };
    }
    const database = await ready;
    const run =
      command === 'backup'
        ? await backup(database, rest, signal)
        : await runKeysCliCollected(argv, (use) => use(database.db));
    // The command's name and outcome only: its output may hold a new key.
    logger.info(
      { command, exitCode: run.code },
      `${command === 'backup' ? 'backup' : 'keys command'} over the admin socket`,
    );
    return run;
  };
  const socket = await claimWithin(path, handler, logger);
  return { serve, close: () => socket.close() };
}

function backup(
  database: DatabaseHandle,
  argv: string[],
  signal: AbortSignal,
): Promise<AdminAnswer> {
  const [file] = argv;
  if (!database.backup || file === undefined || argv.length !== 1) {
    return Promise.resolve({ code: 2, stdout: '', stderr: 'usage: backup ABSOLUTE_FILE\n' });
  }
  return writeBackup(database.backup, file, signal);
}

async function claimWithin(
  path: string,
  handler: AdminHandler,
  logger: Logger,
): Promise<AdminSocket> {
  const deadline = Date.now() + CLAIM_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await claimAdminSocket(path, handler);
    } catch (error) {
      if (!(error instanceof AdminSocketInUse)) throw error;
      if (Date.now() > deadline) {
        throw new Error(
          `Another process holds the embedded database: its admin socket ${path} answers. ` +
            'Stop it (another service, or a keys command), or give this service its own PGLITE_DIR.',
        );
      }
      if (attempt === 0) {
        logger.warn({ socket: path }, 'the data folder is in use by another process; waiting');
      }
      await new Promise((resolve) => setTimeout(resolve, CLAIM_RETRY_MS));
    }
  }
}
