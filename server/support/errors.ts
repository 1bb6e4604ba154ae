/**
 * The errors of the process itself, which any layer may throw. The domain's refusals are its
 * own (server/domain/errors.ts).
 */

/** The service cannot start as configured; the process says why and exits non-zero. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
