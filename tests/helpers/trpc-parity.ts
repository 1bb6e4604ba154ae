import type { RawResponse } from './raw-http.js';

/**
 * Headers about the connection or the moment rather than the answer: the lean path sends
 * Content-Length where the adapter streams chunks, and closes the connection after a 413 whose
 * body it stopped reading.
 */
const TRANSPORT = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
]);

/** What must be the same whichever path answered: status, body byte for byte, headers. */
export function comparable(response: RawResponse, origin: string) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (TRANSPORT.has(name) || value === undefined) continue;
    // Links name the server's own port; RateLimit's `t` counts seconds left in its own window.
    headers[name] = String(value)
      .replaceAll(origin, 'ORIGIN')
      .replace(/;t=\d+/, ';t=T');
  }
  return { status: response.status, headers, body: response.body };
}

/** tRPC's adapter streams every answer in chunks; the lean path, like every other answer, does not. */
export function servedBy(response: RawResponse): 'adapter' | 'not adapter' {
  return response.headers['transfer-encoding'] === 'chunked' ? 'adapter' : 'not adapter';
}
