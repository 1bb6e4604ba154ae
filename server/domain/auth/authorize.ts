import type { ApiKeyScope } from '../../../db/queries/api-keys.js';
import { ForbiddenError, UnauthenticatedError } from '../errors.js';
import type { Principal } from './authenticator.js';

/** Authentication, so an anonymous caller learns nothing about validation; then the key's scope. */
export function authorize(principal: Principal | null, scope: ApiKeyScope): Principal {
  if (!principal) {
    throw new UnauthenticatedError('Missing or invalid API key');
  }
  if (scope === 'write' && principal.scope !== 'write') {
    throw new ForbiddenError('This API key is read-only');
  }
  return principal;
}
