import type { IncomingMessage } from 'node:http';
import { TRPCError } from '@trpc/server';

export const MAX_BODY_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function tooLarge(): TRPCError {
  return new TRPCError({
    code: 'PAYLOAD_TOO_LARGE',
    message: `Request body exceeds ${MAX_BODY_BYTES} bytes`,
  });
}

/** `application/json`, with an optional UTF-8 charset; anything else is a 415. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [type = '', ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every(
    (param) => !param.startsWith('charset=') || /^charset="?utf-8"?$/.test(param),
  );
}

/**
 * Reads at most MAX_BODY_BYTES: a declared larger length is refused before reading, and a
 * stream that grows past the limit is refused as soon as it does, without buffering the rest.
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        cleanup();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(
        new TRPCError({
          code: 'CLIENT_CLOSED_REQUEST',
          message: 'Request body aborted',
          cause: error,
        }),
      );
    };
    const onClose = () => {
      onError(new Error('connection closed before the body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

export function parseJson(raw: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'Request body is not valid UTF-8' });
  }
  if (text.trim() === '') {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'Request body is empty; expected JSON' });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    const detail = cause instanceof SyntaxError ? `: ${cause.message}` : '';
    throw new TRPCError({ code: 'BAD_REQUEST', message: `Malformed JSON${detail}` });
  }
}
