import { TRPCError } from '@trpc/server';
import { parseJsonText } from '../pipeline/body.js';
import { queryParameters } from '../pipeline/query-string.js';

/**
 * The query parameters a tRPC client sends: `input` (JSON), `batch=1`, `connectionParams` and
 * `lastEventId` (httpSubscriptionLink). Anything else, or any of them twice, is a 400, as on
 * REST: a parameter the service would ignore is a caller's mistake it should hear about.
 */
const KNOWN = new Set(['input', 'batch', 'connectionParams', 'lastEventId', 'Last-Event-Id']);

export interface TrpcQuery {
  /** The `input` parameter, parsed; undefined when absent or empty. */
  input: unknown;
  batch: boolean;
  /** More than `input`: only tRPC's adapter reads the others. */
  other: boolean;
}

export function parseTrpcQuery(query: string): TrpcQuery {
  if (query === '') return { input: undefined, batch: false, other: false };
  const seen = new Set<string>();
  let input: unknown;
  let batch = false;
  let other = false;
  for (const [name, value] of queryParameters(query)) {
    if (!KNOWN.has(name)) {
      throw new TRPCError({ code: 'BAD_REQUEST', message: `Unknown query parameter "${name}"` });
    }
    if (seen.has(name)) {
      throw new TRPCError({
        code: 'BAD_REQUEST',
        message: `Query parameter "${name}" is repeated`,
      });
    }
    seen.add(name);
    if (name === 'input')
      input = value === '' ? undefined : parseJsonText(value, 'the input parameter');
    else if (name === 'batch') batch = value === '1';
    else other = true;
  }
  return { input, batch, other };
}
