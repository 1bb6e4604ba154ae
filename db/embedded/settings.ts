/** PostgreSQL settings of the embedded database, in PostgreSQL's units (`16MB`). */
export interface EmbeddedSettings {
  /**
   * PostgreSQL's 128MB default is most of PGlite's memory, held by every process that opens a
   * folder; the operating system's page cache holds the data files anyway.
   */
  sharedBuffers: string;
  /**
   * The WAL the folder may hold. PGlite runs no checkpointer and single-user PostgreSQL starts
   * none by WAL volume, so the service checkpoints once half of this was written
   * (./wal.ts); only the WAL since the last checkpoint is kept. The 1GB default left most of a
   * folder WAL.
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
