/**
 * The errors of the process itself, which any layer may throw. The domain's refusals are its
 * own (server/domain/errors.ts).
 */

/** The service cannot start as configured; the process says why and exits non-zero. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A listener that could not bind its port: which one, and the address it asked for. */
export class ListenError extends Error {
  override name = 'ListenError';

  constructor(
    readonly listener: 'service' | 'metrics',
    readonly address: string,
    options: { cause: unknown },
  ) {
    super(`The ${listener} listener could not listen on ${address}`, options);
  }
}
