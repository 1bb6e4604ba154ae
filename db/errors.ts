/**
 * Errors that mean "the database cannot serve us right now" rather than "this query is wrong":
 * connection failures from either driver and PostgreSQL's admin-shutdown, cannot-connect,
 * too-many-connections, statement-timeout and lock-timeout classes.
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
  '55P03',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** The codes along an error's cause chain: drivers and drizzle wrap one another. */
function* codesAlong(error: unknown): Generator<string> {
  for (let current = error, depth = 0; current && depth < 8; depth++) {
    const code = codeOf(current);
    if (code) yield code;
    current = current instanceof Error ? current.cause : undefined;
  }
}

export function isDatabaseUnavailable(error: unknown): boolean {
  for (const code of codesAlong(error)) {
    if (UNAVAILABLE_CODES.has(code) || code.startsWith('08')) return true;
  }
  return false;
}

/**
 * The server refused the statement's data (SQLSTATE class 22, data exception, or 23, integrity
 * constraint violation): the statement failed as a whole and changed nothing.
 */
export function isRefusedData(error: unknown): boolean {
  for (const code of codesAlong(error)) {
    if (/^2[23][0-9A-Z]{3}$/.test(code)) return true;
  }
  return false;
}

/** A rejection's reason as an Error, for the results of a batch that reports one per member. */
export function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
