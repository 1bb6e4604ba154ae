import type { Database } from '../../../db/database.js';
import { DatabaseBudget } from '../../../db/deadline.js';
import { revokedApiKeyIds } from '../../../db/queries/api-keys.js';
import { UnauthenticatedError, type DomainError } from '../errors.js';
import { summarizeError } from '../../support/error-summary.js';
import type { Logger } from '../../support/logger.js';

/**
 * How often the keys of open streams are checked. Revocation is a row in the database that
 * every process and instance reads, through any pooler, so this query is how it reaches open
 * streams everywhere; with the query's own time it stays within the 1 s that new requests get.
 */
export const KEY_CHECK_INTERVAL_MS = 500;

/** The stream's key was revoked: the stream ends (REST) or fails UNAUTHORIZED (tRPC). */
export class KeyRevokedError extends UnauthenticatedError {
  override name = 'KeyRevokedError';
  constructor(keyId: string) {
    super(`API key ${keyId} was revoked; its streams ended`);
  }
}

/** What a watched stream is to the watch: something to end. */
export interface Endable {
  end(reason: DomainError): void;
}

/**
 * The open streams of one process by key, checked against the database while there are any:
 * a stream belongs to its key and ends when the key is revoked.
 */
export class KeyWatch {
  private readonly byKey = new Map<string, Set<Endable>>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  private warned = false;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  /** Watches a stream of `keyId`; returns what stops watching it. */
  add(keyId: string, stream: Endable): () => void {
    let streams = this.byKey.get(keyId);
    if (!streams) this.byKey.set(keyId, (streams = new Set()));
    streams.add(stream);
    this.timer ??= setInterval(() => void this.check(), KEY_CHECK_INTERVAL_MS).unref();
    return () => {
      streams.delete(stream);
      if (streams.size === 0 && this.byKey.get(keyId) === streams) this.byKey.delete(keyId);
      if (this.byKey.size > 0) return;
      clearInterval(this.timer);
      this.timer = undefined;
    };
  }

  private async check(): Promise<void> {
    // A database slower than the interval gets one query at a time, not a queue of them.
    if (this.checking || this.byKey.size === 0) return;
    this.checking = true;
    try {
      const revoked = await new DatabaseBudget().within(() =>
        revokedApiKeyIds(this.db, [...this.byKey.keys()]),
      );
      this.warned = false;
      for (const keyId of revoked) {
        for (const stream of [...(this.byKey.get(keyId) ?? [])])
          stream.end(new KeyRevokedError(keyId));
      }
    } catch (error) {
      // Unreachable, the database cannot say a key was revoked: the streams go on, as their
      // feed does, and the next check after it returns ends those of revoked keys.
      if (!this.warned) {
        this.warned = true;
        this.logger.warn(
          { err: summarizeError(error, { stack: false }) },
          'could not check the keys of open event streams',
        );
      }
    } finally {
      this.checking = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
