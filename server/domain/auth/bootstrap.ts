import type { DatabaseHandle } from '../../../db/client.js';
import { countActiveApiKeys } from '../../../db/queries/api-keys.js';
import { ConfigError } from '../../support/errors.js';
import { issueApiKey, type IssuedApiKey } from './issue-api-key.js';

/**
 * Makes sure some key can call the service. The embedded database issues one on its first
 * start so the quick start needs no setup; a PostgreSQL deployment must be given one on purpose.
 * Returns the key when one was issued, so the caller can show it once.
 */
export async function ensureApiKey(
  database: DatabaseHandle,
  configuredKeys: readonly string[],
): Promise<IssuedApiKey | undefined> {
  if (configuredKeys.length > 0) return undefined;
  if ((await countActiveApiKeys(database.db)) > 0) return undefined;
  if (database.kind === 'postgres') {
    throw new ConfigError(
      'No API key exists. Set API_KEYS=<key>[,<key>...] or issue one with `npm run keys -- create --name <name>`.',
    );
  }
  return issueApiKey(database.db, { name: 'bootstrap', scope: 'write' });
}
