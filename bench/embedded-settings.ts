/**
 * The embedded database's PostgreSQL settings, in PostgreSQL's units (`16MB`), as an operator
 * sets them (PGLITE_SHARED_BUFFERS, PGLITE_MAX_WAL_SIZE, PGLITE_MIN_WAL_SIZE): the bench passes
 * them to the service and opens the folders it loads with the same, so both agree whatever the
 * service's defaults become.
 */
export interface EmbeddedSettings {
  sharedBuffers: string;
  maxWalSize: string;
  minWalSize: string;
}

/** The service's documented defaults (docs/operations.md, "Configuration"). */
export const DEFAULT_EMBEDDED_SETTINGS: EmbeddedSettings = {
  sharedBuffers: '16MB',
  maxWalSize: '64MB',
  minWalSize: '32MB',
};

/** What PGlite runs with when nothing is set: PostgreSQL's defaults. */
export const POSTGRES_DEFAULTS: EmbeddedSettings = {
  sharedBuffers: '128MB',
  maxWalSize: '1GB',
  minWalSize: '80MB',
};

/** The settings as the service's environment. */
export function settingsEnv(settings: EmbeddedSettings): Record<string, string> {
  return {
    PGLITE_SHARED_BUFFERS: settings.sharedBuffers,
    PGLITE_MAX_WAL_SIZE: settings.maxWalSize,
    PGLITE_MIN_WAL_SIZE: settings.minWalSize,
  };
}

/** The settings as PostgreSQL start parameters, for a PGlite the bench opens itself. */
export function settingsStartParams(settings: EmbeddedSettings): string[] {
  return [
    ...['-c', `shared_buffers=${settings.sharedBuffers}`],
    ...['-c', `max_wal_size=${settings.maxWalSize}`],
    ...['-c', `min_wal_size=${settings.minWalSize}`],
  ];
}
