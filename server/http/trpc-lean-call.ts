import type { IncomingMessage } from 'node:http';
import { TRPCError, type AnyTRPCProcedure, type AnyTRPCRouter } from '@trpc/server';
import { readBody } from './body.js';

/** One plain tRPC call: a query by GET or a mutation by POST, JSON in, not batched. */
export interface LeanCall {
  type: 'query' | 'mutation';
  /** What tRPC hands the procedure: read once, and only when its input parser asks. */
  getRawInput: () => Promise<unknown>;
  /** The input once read (undefined before), which tRPC passes to the error formatter. */
  readInput: () => unknown;
}

const METHOD_OF: Record<LeanCall['type'], string> = { query: 'GET', mutation: 'POST' };

// Non-fatal, as the adapter's Request.text() decodes: bad bytes become U+FFFD, a BOM is dropped.
const utf8 = new TextDecoder('utf-8');

/** tRPC's own test of a JSON request: the media type alone, any parameters ignored. */
function isJsonMediaType(header: string | undefined): boolean {
  // The usual header is compared as it is, without the copies splitting it makes (~1 µs).
  if (header === 'application/json') return true;
  return header?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  let raw: Buffer;
  try {
    raw = await readBody(req);
  } catch (error) {
    // The adapter's 413 names only its code; a client sees the same answer on either path.
    if (error instanceof TRPCError && error.code === 'PAYLOAD_TOO_LARGE') {
      throw new TRPCError({ code: 'PAYLOAD_TOO_LARGE' });
    }
    throw error;
  }
  const text = utf8.decode(raw);
  // An empty body is no input, not a parse error: validation then names what is missing.
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/**
 * The adapter reads input lazily and once, so middleware that refuses a call (authentication,
 * scope) answers before the input is looked at, and a parse failure is a 400 with the parser's
 * own message.
 */
function lazyInput(
  read: () => unknown,
  transformer: { deserialize: (value: unknown) => unknown },
): Pick<LeanCall, 'getRawInput' | 'readInput'> {
  let pending: Promise<unknown> | undefined;
  let input: unknown;
  const load = async (): Promise<unknown> => {
    try {
      const raw = await read();
      input = raw === undefined ? undefined : transformer.deserialize(raw);
      return input;
    } catch (cause) {
      if (cause instanceof TRPCError) throw cause;
      throw new TRPCError({
        code: 'BAD_REQUEST',
        message: cause instanceof Error ? cause.message : 'Invalid input',
        cause,
      });
    }
  };
  return { getRawInput: () => (pending ??= load()), readInput: () => input };
}

/**
 * The call this request makes, when it is one the lean path answers exactly as tRPC's adapter
 * would; undefined sends it to the adapter. The adapter keeps everything unusual: a path that
 * names no procedure as written (batches `a,b`, percent-encoding, unknown or lazy procedures),
 * subscriptions, a method the procedure does not take, query parameters other than one
 * `input` (`batch`, `connectionParams`), streaming responses and non-JSON bodies.
 */
export function leanCallOf(
  router: AnyTRPCRouter,
  req: IncomingMessage,
  url: URL,
  path: string,
): LeanCall | undefined {
  const procedures = router._def.procedures as Partial<Record<string, AnyTRPCProcedure>>;
  const type = procedures[path]?._def.type;
  if (type !== 'query' && type !== 'mutation') return undefined;
  if (req.method !== METHOD_OF[type]) return undefined;
  if (req.headers['trpc-accept'] !== undefined || req.headers.accept?.includes('application/jsonl'))
    return undefined;
  const contentType = req.headers['content-type'];
  const transformer = router._def._config.transformer.input;

  if (type === 'query') {
    const input = url.searchParams.get('input');
    if (url.searchParams.size !== (input === null ? 0 : 1)) return undefined;
    if (contentType !== undefined && !isJsonMediaType(contentType)) return undefined;
    return {
      type,
      // An absent or empty `input` is no input, as for the adapter.
      ...lazyInput(() => (input ? JSON.parse(input) : undefined), transformer),
    };
  }
  if (url.searchParams.size !== 0 || !isJsonMediaType(contentType)) return undefined;
  return { type, ...lazyInput(() => readJsonBody(req), transformer) };
}
