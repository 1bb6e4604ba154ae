import type { Database } from '../db/client.js';
import type { Principal } from './auth/authenticator.js';

export interface ContextOptions {
  db: Database;
  /** The authenticated caller, or null when no valid key was presented. */
  principal: Principal | null;
  /** The REST base address the caller used, ending in /v1; links in responses are built on it. */
  baseUrl: string;
}

export interface Context extends ContextOptions {
  /** Headers a procedure adds to its response (Location, Link); both HTTP surfaces send them. */
  responseHeaders: Record<string, string>;
}

/** Request-free, so tests build it directly; the HTTP layer wraps it. */
export function createContextInner(options: ContextOptions): Context {
  return { ...options, responseHeaders: {} };
}
