import { TRPCError } from '@trpc/server';

const NOT_UTF8 = new TRPCError({
  code: 'BAD_REQUEST',
  message:
    'The query string is not percent-encoded UTF-8: a `%` without two hex digits, or bytes that are not UTF-8',
});

/** decodeURIComponent throws on both faults, where URLSearchParams would put U+FFFD or keep the `%`. */
function decode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw NOT_UTF8;
  }
}

/**
 * The parameters of a query (without its `?`) in order, as URLSearchParams splits them (`&`
 * between, empty pieces skipped, a name without `=` has the empty value, `+` is a space), but
 * decoded strictly, on both surfaces.
 */
export function queryParameters(query: string): [name: string, value: string][] {
  const parameters: [string, string][] = [];
  for (const piece of query.split('&')) {
    if (piece === '') continue;
    const equals = piece.indexOf('=');
    parameters.push(
      equals === -1
        ? [decode(piece), '']
        : [decode(piece.slice(0, equals)), decode(piece.slice(equals + 1))],
    );
  }
  return parameters;
}
