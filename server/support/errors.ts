import { TRPCError } from '@trpc/server';

/**
 * The errors every layer may throw on purpose. The service's errors are tRPC's, whose codes
 * the surfaces map to the contract's Error body (server/surfaces/trpc/errors.ts); these two
 * carry what a code alone cannot.
 */

/** The service cannot start as configured; the process says why and exits non-zero. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * What was asked for existed but is no longer kept (an event past the retention). tRPC has no
 * code for 410, so it travels as NOT_FOUND, the nearest; the contract's body says GONE, 410.
 */
export class GoneError extends TRPCError {
  constructor(message: string) {
    super({ code: 'NOT_FOUND', message });
  }
}
