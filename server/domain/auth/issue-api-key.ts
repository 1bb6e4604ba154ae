import type { Database } from '../../../db/client.js';
import { insertApiKey, type ApiKeyScope } from '../../../db/queries/api-keys.js';
import { generateApiKey, hashApiKey } from './api-key.js';

export interface IssuedApiKey {
  id: string;
  /** The secret itself: shown once, never stored. */
  key: string;
  name: string;
  scope: ApiKeyScope;
}

export async function issueApiKey(
  db: Database,
  options: { name: string; scope: ApiKeyScope },
): Promise<IssuedApiKey> {
  const { id, key } = generateApiKey();
  await insertApiKey(db, {
    id,
    name: options.name,
    scope: options.scope,
    secretHash: hashApiKey(key),
  });
  return { id, key, name: options.name, scope: options.scope };
}
