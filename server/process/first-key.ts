import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IssuedApiKey } from '../domain/auth/issue-api-key.js';
import type { Config } from './config.js';
import type { Logger } from '../support/logger.js';

const FILE_NAME = 'first-api-key';

/**
 * Where the first key goes when nobody watches a terminal: the embedded database's own folder
 * (the one place a container is sure to keep and to let the service write), or a private
 * temporary folder when the database lives in memory.
 */
function keyFile(config: Config): string {
  const folder = config.PGLITE_DIR.includes('://')
    ? mkdtempSync(join(tmpdir(), 'petstore-'))
    : config.PGLITE_DIR;
  return join(folder, FILE_NAME);
}

/**
 * Hands the first key to the person who started the service, once. stderr goes to the log
 * collector as often as to a person (docker logs, systemd's journal), so the key is printed
 * only on a terminal; otherwise it is written to a file only its owner can read, and the log
 * says where (never the key).
 */
export function handOverFirstKey(issued: IssuedApiKey, config: Config, logger: Logger): void {
  if (process.stderr.isTTY) {
    process.stderr.write(
      `\nIssued the first API key (${issued.id}); it is shown only this once:\n\n    ${issued.key}\n\n` +
        `Call the service with:  Authorization: Bearer ${issued.key}\n\n`,
    );
    return;
  }
  const file = keyFile(config);
  // A fresh file, so the mode below is the one it gets whatever was there before.
  rmSync(file, { force: true });
  writeFileSync(file, `${issued.key}\n`, { mode: 0o600, flag: 'wx' });
  logger.warn(
    { keyId: issued.id, file },
    'issued the first API key; stderr is not a terminal, so it was written to this file (mode 0600) instead: read it, keep the key, then delete the file',
  );
}
