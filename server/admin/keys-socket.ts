import { runKeysCliCollected } from './keys-commands.js';
import type { Database } from '../../db/client.js';
import type { Logger } from '../process/logger.js';
import { ADMIN_COMMANDS, type AdminAnswer } from './protocol.js';
import { AdminSocketInUse, claimAdminSocket, type AdminSocket } from './socket.js';

/** How long a starting service waits for a keys command that holds the data folder. */
const CLAIM_WAIT_MS = 10_000;
const CLAIM_RETRY_MS = 200;

export interface KeysSocket {
  /** Commands run from now on; those that arrived earlier waited for this. */
  serve(db: Database): void;
  close(): Promise<void>;
}

/**
 * The embedded database's admin socket, on the service's side: `npm run keys` runs its
 * create, list and revoke here, with the same command-line code as when it opens the data
 * folder itself, on the service's open database. Claimed before the database is opened, so a
 * keys command or a second service that holds the folder keeps this one from opening it too.
 */
export async function claimKeysSocket(path: string, logger: Logger): Promise<KeysSocket> {
  let serve: (db: Database) => void = () => undefined;
  const ready = new Promise<Database>((resolve) => {
    serve = resolve;
  });
  const handler = async (argv: string[]): Promise<AdminAnswer> => {
    const [command] = argv;
    if (command === undefined || !ADMIN_COMMANDS.includes(command)) {
      return { code: 2, stdout: '', stderr: 'The service runs only create, list and revoke.\n' };
    }
    const db = await ready;
    const run = await runKeysCliCollected(argv, (use) => use(db));
    // The command's name and outcome only: its output may hold a new key.
    logger.info({ command, exitCode: run.code }, 'keys command over the admin socket');
    return run;
  };
  const socket = await claimWithin(path, handler, logger);
  return { serve, close: () => socket.close() };
}

async function claimWithin(
  path: string,
  handler: (argv: string[]) => Promise<AdminAnswer>,
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
