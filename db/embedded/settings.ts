import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

/** PostgreSQL settings of the embedded database, in PostgreSQL's units (`16MB`). */
export interface EmbeddedSettings {
  /**
   * PostgreSQL's 128MB default is most of PGlite's memory, held by every process that opens a
   * folder; the operating system's page cache holds the data files anyway.
   */
  sharedBuffers: string;
  /**
   * WAL written before a checkpoint. PGlite runs no checkpointer: a checkpoint happens inline
   * when this much WAL has been written, and only the WAL since the last one is needed. The
   * 1GB default left most of a folder WAL.
   */
  maxWalSize: string;
  /** WAL kept for reuse after a checkpoint rather than removed. */
  minWalSize: string;
}

export const DEFAULT_EMBEDDED_SETTINGS: EmbeddedSettings = {
  sharedBuffers: '16MB',
  maxWalSize: '64MB',
  minWalSize: '32MB',
};

/**
 * PGlite's own start parameters, then the settings above, and pg_trgm: the migrations create it,
 * which PGlite can only do when the extension is loaded.
 */
export function pgliteOptions(settings: EmbeddedSettings): PGliteOptions {
  return {
    extensions: { pg_trgm },
    startParams: [
      ...PGlite.defaultStartParams,
      ...['-c', `shared_buffers=${settings.sharedBuffers}`],
      ...['-c', `max_wal_size=${settings.maxWalSize}`],
      ...['-c', `min_wal_size=${settings.minWalSize}`],
    ],
  };
}
