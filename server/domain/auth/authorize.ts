import { TRPCError } from '@trpc/server';
import type { ApiKeyScope } from '../../../db/queries/api-keys.js';
import type { Principal } from './authenticator.js';

/** Authentication, so an anonymous caller learns nothing about validation; then the key's scope. */
export function authorize(principal: Principal | null, scope: ApiKeyScope): Principal {
  if (!principal) {
    throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Missing or invalid API key' });
  }
  if (scope === 'write' && principal.scope !== 'write') {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'This API key is read-only' });
  }
  return principal;
}
