import { adminSocketPath } from '../../server/surfaces/admin/protocol.js';
import {
  AdminSocketInUse,
  askAdminSocket,
  claimAdminSocket,
} from '../../server/surfaces/admin/socket.js';
import type { ExitCode } from '../../server/surfaces/admin/keys-commands.js';

/** Generous: the service may still be migrating when the command arrives. */
const ANSWER_TIMEOUT_MS = 30_000;

/**
 * A command on the embedded database (`npm run keys`, `npm run db:backup`). Only one process may
 * open its data folder: when the service runs, the command runs there, over the folder's admin
 * socket; when none does (no socket, or one a dead process left), `runHere` opens the folder
 * itself, holding the socket meanwhile so that a service or another command waits instead of
 * opening it too.
 */
export async function runOnEmbedded(
  argv: readonly string[],
  runHere: () => Promise<ExitCode>,
  dataDir: string,
  deps: { stdout(text: string): void; stderr(text: string): void },
): Promise<ExitCode> {
  const path = adminSocketPath(dataDir);
  if (!path) return runHere();
  const answer = await askAdminSocket(path, argv, ANSWER_TIMEOUT_MS);
  if (answer) {
    deps.stdout(answer.stdout);
    deps.stderr(answer.stderr);
    return answer.code;
  }
  let held;
  try {
    held = await claimAdminSocket(path, () =>
      Promise.resolve({
        code: 1,
        stdout: '',
        stderr: `Another command is using the embedded database in ${dataDir}; run this one again when it is done.\n`,
      }),
    );
  } catch (error) {
    if (!(error instanceof AdminSocketInUse)) throw error;
    deps.stderr(
      `The embedded database in ${dataDir} was opened by another process just now; run the command again.\n`,
    );
    return 1;
  }
  try {
    return await runHere();
  } finally {
    await held.close();
  }
}
