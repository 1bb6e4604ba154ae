/**
 * Errors that mean "the database cannot serve us right now" rather than "this query is wrong":
 * connection failures from either driver and PostgreSQL's admin-shutdown, cannot-connect,
 * too-many-connections and statement-timeout classes.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'DATABASE_DEADLINE',
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 8; depth++) {
    const code = codeOf(current);
    if (code && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}
