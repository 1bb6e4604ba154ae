/**
 * What a log line may say about an error. Error messages are not safe to log: drizzle's quote
 * the statement and its parameters (a pet's name, a key's id), PostgreSQL's `detail` quotes the
 * row, and a library may quote its input. So a line names the error's kind, its code, which
 * statement failed and, for an error nobody expected, where it was thrown; never a message.
 */
export interface ErrorSummary {
  /** The error's class names along its cause chain, outermost first: `DrizzleQueryError < PostgresError`. */
  kind: string;
  /** The first code along the chain: a SQLSTATE (`42703`), an errno (`ECONNREFUSED`), ours. */
  code?: string;
  /** The failed statement by verb and table (`insert pets`), never its text or values. */
  query?: string;
  /** The stack frames of the outermost error, without its message. */
  stack?: string;
}

const MAX_DEPTH = 8;
const VERB = /^\s*(select|insert|update|delete|with)\b/i;
const TABLE = /\b(?:from|into|update)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/i;

/** `insert pets` for `insert into "pets" (...) values ($1, $2)`. */
function statementName(text: string): string {
  const verb = VERB.exec(text)?.[1]?.toLowerCase() ?? 'statement';
  const table = TABLE.exec(text)?.[1];
  return table ? `${verb} ${table}` : verb;
}

function field(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null
    ? (error as Record<string, unknown>)[name]
    : undefined;
}

function frames(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined;
  const lines = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/**
 * The error's class name; an error PostgreSQL sent (a severity and a SQLSTATE) is a
 * PostgresError from either driver, since PGlite's class name does not survive its build.
 */
function kindOf(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const code = field(error, 'code');
  const fromServer = typeof field(error, 'severity') === 'string' && typeof code === 'string';
  return fromServer && /^[0-9A-Z]{5}$/.test(code) ? 'PostgresError' : error.constructor.name;
}

export function summarizeError(error: unknown, options: { stack: boolean }): ErrorSummary {
  const kinds: string[] = [];
  const summary: ErrorSummary = { kind: '' };
  for (let current = error, depth = 0; current !== undefined && depth < MAX_DEPTH; depth++) {
    kinds.push(kindOf(current));
    const code = field(current, 'code');
    if (summary.code === undefined && (typeof code === 'string' || typeof code === 'number')) {
      summary.code = String(code);
    }
    const query = field(current, 'query');
    if (summary.query === undefined && typeof query === 'string') {
      summary.query = statementName(query);
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  summary.kind = kinds.join(' < ');
  if (options.stack) {
    const stack = frames(field(error, 'stack'));
    if (stack) summary.stack = stack;
  }
  return summary;
}
