import type { Database } from '../../db/database.js';
import { DatabaseBudget } from '../../db/deadline.js';
import { boundRunner, type Transactor } from '../../db/runner.js';
import type { ApiKeyScope } from '../../db/queries/api-keys.js';
import type { ReadReplicas } from '../../db/replicas/read-replicas.js';
import type { Principal } from '../domain/auth/authenticator.js';
import { authorize } from '../domain/auth/authorize.js';
import type { EventStreams } from '../domain/events/streams.js';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../webhooks/domain/settings.js';
import { createCursorCodec, DEFAULT_CURSOR_SECRET, type CursorCodec } from './cursor.js';

/** What a deployment sets for the operations of its modules, each under the module's name. */
export interface OperationSettings {
  /** The defaults refuse private addresses. */
  webhooks: WebhookSettings;
}

const DEFAULT_SETTINGS: OperationSettings = { webhooks: DEFAULT_WEBHOOK_SETTINGS };

export interface ContextOptions {
  db: Database;
  /** The authenticated caller, or null when no valid key was presented. */
  principal: Principal | null;
  /** The REST base address the caller used, ending in /v1; links in responses are built on it. */
  baseUrl: string;
  /** Signs pagination cursors; DEFAULT_CURSOR_SECRET when the deployment sets none. */
  cursorSecret?: string | undefined;
  /**
   * The Idempotency-Key request header as received; the operations that honour it validate it,
   * so both surfaces agree.
   */
  idempotencyKey?: string | undefined;
  /** The If-Match request header as received: changes to a pet check it (412 when it fails). */
  ifMatch?: string | undefined;
  /** The If-None-Match request header as received: a change it matches is refused (412). */
  ifNoneMatch?: string | undefined;
  /** The request's time on the database; the HTTP pipeline starts it before authentication. */
  budget?: DatabaseBudget;
  /**
   * Where the operation puts the headers of its answer (Location, Link): the HTTP pipeline
   * passes the one set of headers every answer to the request carries.
   */
  responseHeaders?: Record<string, string>;
  /** The process's event streams; absent where no streams are served (router tests). */
  streams?: EventStreams | undefined;
  /** Drops the request's connection: how a stream whose client stopped reading is cut off. */
  closeConnection?: () => void;
  /** Tells the event streams of every process that a change committed. */
  notifyChange?: () => void;
  /** The deployment's settings of the operations' modules; the defaults where absent. */
  settings?: OperationSettings;
  /** Where reads may go besides `db`: absent, every read is the primary's. */
  replicas?: ReadReplicas | undefined;
  /**
   * The Petstore-Position request header as received: the reads a replica may serve check it
   * and see at least that far.
   */
  position?: string | undefined;
}

export interface Context extends Required<
  Omit<
    ContextOptions,
    | 'db'
    | 'cursorSecret'
    | 'idempotencyKey'
    | 'ifMatch'
    | 'ifNoneMatch'
    | 'streams'
    | 'replicas'
    | 'position'
  >
> {
  /** The request's statements: each bounded by its budget, refused once that is spent. */
  db: Transactor;
  /** The process's database, for work the request shares with others (grouped inserts). */
  database: Database;
  idempotencyKey: string | undefined;
  ifMatch: string | undefined;
  ifNoneMatch: string | undefined;
  streams: EventStreams | undefined;
  cursors: CursorCodec;
  replicas: ReadReplicas | undefined;
  position: string | undefined;
}

/** What an operation runs with: the request's context, its caller known and allowed. */
export interface OperationContext extends Context {
  principal: Principal;
}

/**
 * The one step from a request's context to an operation's: the caller must be authenticated
 * and its key's scope must allow the operation (domain/auth/authorize.ts), else it throws.
 */
export function requireCaller(ctx: Context, scope: ApiKeyScope): asserts ctx is OperationContext {
  authorize(ctx.principal, scope);
}

const codecs = new Map<string, CursorCodec>();

/** One codec per secret for the process: a deployment has one secret, tests a few. */
function cursorCodecFor(secret: string): CursorCodec {
  let codec = codecs.get(secret);
  if (!codec) {
    codec = createCursorCodec(secret);
    codecs.set(secret, codec);
  }
  return codec;
}

/** Request-free, so tests build it directly; the HTTP pipeline passes what it read. */
export function createContextInner(options: ContextOptions): Context {
  const budget = options.budget ?? new DatabaseBudget();
  return {
    db: boundRunner(options.db, budget),
    database: options.db,
    principal: options.principal,
    baseUrl: options.baseUrl,
    idempotencyKey: options.idempotencyKey,
    ifMatch: options.ifMatch,
    ifNoneMatch: options.ifNoneMatch,
    budget,
    responseHeaders: options.responseHeaders ?? {},
    streams: options.streams,
    closeConnection: options.closeConnection ?? (() => undefined),
    notifyChange: options.notifyChange ?? (() => undefined),
    settings: options.settings ?? DEFAULT_SETTINGS,
    cursors: cursorCodecFor(options.cursorSecret ?? DEFAULT_CURSOR_SECRET),
    replicas: options.replicas,
    position: options.position,
  };
}
