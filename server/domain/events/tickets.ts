import { hash, randomBytes } from 'node:crypto';
import type { Database } from '../../../db/database.js';
import { DatabaseBudget } from '../../../db/deadline.js';
import { boundRunner } from '../../../db/runner.js';
import {
  deleteExpiredStreamTickets,
  insertStreamTicket,
  redeemStreamTicket,
} from '../../../db/queries/stream-tickets.js';
import {
  deleteInBatches,
  PURGE_SCHEDULE,
  runPeriodically,
  type AfterBatch,
} from '../../support/periodic.js';

/** A prefix that secret scanners can look for, then 256 random bits in base64url. */
const PREFIX = 'pst_';
const TICKET = /^pst_[A-Za-z0-9_-]{43}$/;
const PURGE_BATCH_SIZE = 1_000;

export const DEFAULT_TICKET_TTL_SECONDS = 60;

export interface IssuedTicket {
  ticket: string;
  expiresAt: Date;
}

const digest = (ticket: string) => hash('sha256', ticket, 'hex');

/**
 * Short-lived, single-use tickets that stand for an API key when opening an event stream: a
 * browser's EventSource cannot send `Authorization`, and a key must never be in a URL (access
 * logs and history keep URLs). Only a ticket's hash is stored, so the table gives nothing away.
 */
export class StreamTickets {
  constructor(
    private readonly db: Database,
    readonly ttlSeconds: number = DEFAULT_TICKET_TTL_SECONDS,
  ) {}

  async issue(keyId: string): Promise<IssuedTicket> {
    const ticket = PREFIX + randomBytes(32).toString('base64url');
    const expiresAt = await insertStreamTicket(this.db, {
      hash: digest(ticket),
      keyId,
      ttlSeconds: this.ttlSeconds,
    });
    return { ticket, expiresAt };
  }

  /** The key id a valid ticket stands for, spending the ticket; undefined for any other text. */
  redeem(ticket: string, budget = new DatabaseBudget()): Promise<string | undefined> {
    // Text that is no ticket costs no statement.
    if (!TICKET.test(ticket)) return Promise.resolve(undefined);
    return budget.within(() => redeemStreamTicket(boundRunner(this.db, budget), digest(ticket)));
  }

  /** Deletes expired tickets in the background, with the other purges. */
  startPurge(onError: (error: unknown) => void, afterBatch?: AfterBatch): { stop(): void } {
    return runPeriodically(
      () =>
        deleteInBatches(
          (size) => deleteExpiredStreamTickets(this.db, size),
          PURGE_BATCH_SIZE,
          afterBatch,
        ),
      PURGE_SCHEDULE,
      onError,
    );
  }
}
