import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trackInFlight } from '../surfaces/http/pipeline/in-flight.js';
import { ListenError } from '../support/errors.js';
import { answerClientError } from '../surfaces/http/pipeline/client-error.js';

export interface HttpTimeouts {
  /** The whole request, headers and body, must arrive within this. */
  requestMs: number;
  headersMs: number;
  keepAliveMs: number;
}

const DEFAULT_TIMEOUTS: HttpTimeouts = {
  requestMs: 30_000,
  headersMs: 10_000,
  // Longer than a load balancer's usual idle timeout (60 s), so the balancer closes an idle
  // connection first and never sends a request down one we are closing.
  keepAliveMs: 65_000,
};

export interface HttpServer {
  server: Server;
  listen: (port: number, host: string) => Promise<AddressInfo>;
  /** From now on every answer still to be sent ends its connection; `close` ends the rest. */
  stopKeepingAlive(): void;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the rest. */
  close(graceMs: number): Promise<void>;
}

/**
 * Ends the response's connection once the response is finished (every byte handed to the
 * socket, sent before the FIN). For answers whose headers say keep-alive whatever we set: a
 * stream open when shutdown began, and tRPC's SSE answers, whose headers it writes itself.
 * An EventSource would otherwise reconnect on the same connection and hold shutdown open.
 */
function endConnectionAfter(res: ServerResponse): void {
  res.once('finish', () => {
    res.socket?.end();
  });
}

/** The node:http server that hands every request to `handler`, and its graceful close. */
export function createHttpServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  overrides: Partial<HttpTimeouts> = {},
): HttpServer {
  let closing = false;
  const timeouts = { ...DEFAULT_TIMEOUTS, ...overrides };
  const server = createServer({
    // Slow clients must not hold sockets: a whole request within 30 s, headers within 10 s.
    requestTimeout: timeouts.requestMs,
    headersTimeout: timeouts.headersMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // node checks the timeouts every connectionsCheckingInterval (30 s by default): check
    // often enough that a lowered timeout is honoured near its value.
    connectionsCheckingInterval: Math.min(30_000, Math.ceil(timeouts.headersMs / 4)),
    maxHeaderSize: 16 * 1024,
  });
  server.on('clientError', answerClientError);
  const inFlight = trackInFlight(server);
  server.on('request', (req, res) => {
    // While closing, each answer ends its connection: a keep-alive client must not hold
    // shutdown open until its socket idles out.
    if (closing) {
      res.setHeader('connection', 'close');
      endConnectionAfter(res);
    }
    inFlight.enter(req, res);
    handler(req, res);
  });

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        const failed = (error: Error) => {
          reject(new ListenError('service', `${host}:${port}`, { cause: error }));
        };
        server.once('error', failed);
        server.listen(port, host, () => {
          server.off('error', failed);
          resolve(server.address() as AddressInfo);
        });
      }),
    stopKeepingAlive: () => {
      closing = true;
    },
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        // Also when shutdown did not call stopKeepingAlive first.
        closing = true;
        for (const res of inFlight.unsent()) res.setHeader('connection', 'close');
        // Streams sent their headers long ago, keep-alive: the connection ends with them.
        for (const res of inFlight.all()) endConnectionAfter(res);
        const force = setTimeout(() => {
          server.closeAllConnections();
        }, graceMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
