import type { IncomingMessage } from 'node:http';
import { TRPCError } from '@trpc/server';
import getRawBody from 'raw-body';

export const MAX_BODY_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A request body once read and checked: the text as sent, and its JSON value. */
export interface JsonBody {
  text: string;
  value: unknown;
}

function tooLarge(): TRPCError {
  return new TRPCError({
    code: 'PAYLOAD_TOO_LARGE',
    message: `Request body exceeds ${MAX_BODY_BYTES} bytes`,
  });
}

function unsupported(message: string): TRPCError {
  return new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message });
}

/** One of `mediaTypes`, with an optional UTF-8 charset; anything else is a 415. */
export function isJsonContentType(
  header: string | undefined,
  mediaTypes: readonly string[] = ['application/json'],
): boolean {
  if (!header) return false;
  // The usual header, compared as it is before splitting it.
  if (header === mediaTypes[0]) return true;
  const [type = '', ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  if (!mediaTypes.includes(type)) return false;
  return params.every(
    (param) => !param.startsWith('charset=') || /^charset="?utf-8"?$/.test(param),
  );
}

/**
 * RFC 9110 §8.4: a content coding the service does not decode is refused, so that a proxy and
 * the service never read two different bodies.
 */
function checkEncoding(header: string | undefined): void {
  if (header === undefined || header.trim().toLowerCase() === 'identity') return;
  throw unsupported(
    `Content-Encoding "${header}" is not supported: send the body without a content coding`,
  );
}

/**
 * Reads at most MAX_BODY_BYTES with raw-body: a declared larger length is refused before
 * reading, and a stream that grows past the limit is refused as soon as it does, without
 * buffering the rest (raw-body's errors, put in the service's words: a client that left or a
 * body shorter than declared is CLIENT_CLOSED_REQUEST, which gets no answer).
 */
async function readRaw(req: IncomingMessage): Promise<Buffer> {
  try {
    return await getRawBody(req, {
      limit: MAX_BODY_BYTES,
      length: req.headers['content-length'],
    });
  } catch (error) {
    const { type, status = 400 } = error as Partial<getRawBody.RawBodyError>;
    if (type === 'entity.too.large') throw tooLarge();
    // raw-body's 500s are misuse (a body already read or decoded), unless the client left
    // before the reading began: its request is then no longer readable either.
    if (status >= 500 && !req.destroyed) throw error;
    throw new TRPCError({
      code: 'CLIENT_CLOSED_REQUEST',
      message: 'Request body aborted',
      cause: error,
    });
  }
}

export function parseJsonText(text: string, what = 'the request body'): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    const detail = cause instanceof SyntaxError ? `: ${cause.message}` : '';
    throw new TRPCError({ code: 'BAD_REQUEST', message: `Malformed JSON in ${what}${detail}` });
  }
}

/**
 * The one reading of a request body, for both surfaces: its coding, media type and charset,
 * size, UTF-8 and JSON are checked here, before any operation runs. `optional`: a request
 * without a body has no input (tRPC's client sends none for a call without input).
 */
export async function readJsonBody(
  req: IncomingMessage,
  mediaTypes?: readonly string[],
  { optional = false } = {},
): Promise<JsonBody | undefined> {
  if (optional && !hasBody(req)) return undefined;
  checkEncoding(req.headers['content-encoding']);
  if (!isJsonContentType(req.headers['content-type'], mediaTypes)) {
    throw unsupported(`Request body must be ${(mediaTypes ?? ['application/json']).join(' or ')}`);
  }
  const raw = await readRaw(req);
  let text: string;
  try {
    // The strict check raw-body lacks: its own decoding would put U+FFFD in the text.
    text = utf8.decode(raw);
  } catch {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'Request body is not valid UTF-8' });
  }
  if (text.trim() === '') {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'Request body is empty; expected JSON' });
  }
  return { text, value: parseJsonText(text) };
}

/** True when the request has a body: a length above 0, or a chunked one, which declares none. */
function hasBody(req: IncomingMessage): boolean {
  return (
    Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined
  );
}

/**
 * An operation that takes no body (DELETE) refuses one as the others refuse a body they cannot
 * read: 415 for a type that is not JSON, 413 past the size limit, 400 otherwise. Ignoring it
 * would act on a request whose sender meant something the service never read.
 */
export async function refuseBody(req: IncomingMessage): Promise<void> {
  if (!hasBody(req)) return;
  checkEncoding(req.headers['content-encoding']);
  if (!isJsonContentType(req.headers['content-type'])) {
    throw unsupported('This operation takes no body; send none');
  }
  await readRaw(req);
  throw new TRPCError({ code: 'BAD_REQUEST', message: 'This operation takes no body; send none' });
}

/**
 * A GET with a body is refused (400) without reading it, and its connection closed after the
 * answer, so that the unread body is never taken for the next request.
 */
export function refuseUnreadBody(req: IncomingMessage, headers: Record<string, string>): void {
  if (!hasBody(req)) return;
  headers.connection = 'close';
  throw new TRPCError({ code: 'BAD_REQUEST', message: 'A GET request takes no body; send none' });
}
