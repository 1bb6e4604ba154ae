import { ConfigError } from '../server/support/errors.js';

/**
 * Runs a command-line script's `main` and sets the exit code: its own, 78 (EX_CONFIG) for a
 * bad setting, 1 for any other failure, with one line on stderr saying why.
 */
export async function runCommand(main: () => Promise<number>): Promise<void> {
  process.exitCode = await main().catch((error: unknown) => {
    process.stderr.write(
      error instanceof ConfigError
        ? `${error.message}\n`
        : `Failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return error instanceof ConfigError ? 78 : 1;
  });
}
