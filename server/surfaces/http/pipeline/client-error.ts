import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** What node:http refuses before a request reaches the handler, answered as every error is. */
const ANSWERS: Record<string, { status: number; code: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'REQUEST_TIMEOUT',
    message: 'The request was not received in time: send its headers and body without pausing',
  },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
    message: 'The request headers are larger than 16 KiB',
  },
};
const MALFORMED = {
  status: 400,
  code: 'BAD_REQUEST',
  message: 'The request is not valid HTTP/1.1',
};

/**
 * node:http's `clientError`: a request whose headers or body did not arrive in time, or that is
 * not HTTP. Node would write a bare status line; this answers with the Error body and an
 * `X-Request-Id` like any other error, on a connection that can still take an answer and has not
 * begun one (node's own rule), then closes it: what is left of the request cannot be read.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // node:http's current response on this connection, if the request got that far.
  const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || current?.headersSent === true) {
    socket.destroy();
    return;
  }
  const { status, code, message } = ANSWERS[error.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({ code, message, status });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\n` +
      'Cache-Control: no-store\r\n' +
      `Connection: close\r\n\r\n${body}`,
    // Closed once sent, whether or not the client ever ends its half.
    () => socket.destroy(),
  );
}
