import type { Database } from '../db/client.js';
import type { Principal } from './auth/authenticator.js';
import { createCursorCodec, DEFAULT_CURSOR_SECRET, type CursorCodec } from './pagination/cursor.js';

export interface ContextOptions {
  db: Database;
  /** The authenticated caller, or null when no valid key was presented. */
  principal: Principal | null;
  /** The REST base address the caller used, ending in /v1; links in responses are built on it. */
  baseUrl: string;
  /** Signs pagination cursors; DEFAULT_CURSOR_SECRET when the deployment sets none. */
  cursorSecret?: string | undefined;
  /**
   * The Idempotency-Key request header exactly as received (repeated headers joined by ", ",
   * as HTTP combines them); the procedures that honour it validate it, so both surfaces agree.
   */
  idempotencyKey?: string | undefined;
}

export interface Context extends Omit<ContextOptions, 'cursorSecret'> {
  cursors: CursorCodec;
  /** Headers a procedure adds to its response (Location, Link); both HTTP surfaces send them. */
  responseHeaders: Record<string, string>;
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

/** Request-free, so tests build it directly; the HTTP layer wraps it. */
export function createContextInner(options: ContextOptions): Context {
  return {
    db: options.db,
    principal: options.principal,
    baseUrl: options.baseUrl,
    idempotencyKey: options.idempotencyKey,
    cursors: cursorCodecFor(options.cursorSecret ?? DEFAULT_CURSOR_SECRET),
    responseHeaders: {},
  };
}
