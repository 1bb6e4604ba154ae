import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const CURRENT = Symbol('response in flight');
type TrackedSocket = Socket & { [CURRENT]?: ServerResponse | undefined };

export interface InFlight {
  /** Called with each request as it arrives. */
  enter(req: IncomingMessage, res: ServerResponse): void;
  /** Responses being answered whose headers are not sent yet. */
  unsent(): ServerResponse[];
  /** Every response being answered: those whose headers are sent are streams still open. */
  all(): ServerResponse[];
}

/**
 * Finds the responses in flight through their connections, so shutdown can ask each to close
 * its connection. Tracked per connection, not per request: a Set that every request enters and
 * leaves rehashes its table every few dozen requests, and dead tables in V8's old space kept
 * finished requests alive through scavenges (docs/performance.md). Connections come and go far
 * less often than requests.
 */
export function trackInFlight(server: Server): InFlight {
  const sockets = new Set<TrackedSocket>();
  server.on('connection', (socket: TrackedSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    enter(req, res) {
      const socket = req.socket as TrackedSocket;
      socket[CURRENT] = res;
      // Cleared when it ends, so an idle keep-alive connection does not hold a finished request.
      // A response closes once, so `on` does what `once` would without its wrapper per request.
      res.on('close', () => {
        if (socket[CURRENT] === res) socket[CURRENT] = undefined;
      });
    },
    unsent() {
      return this.all().filter((res) => !res.headersSent);
    },
    all() {
      const responses: ServerResponse[] = [];
      for (const socket of sockets) {
        const res = socket[CURRENT];
        if (res) responses.push(res);
      }
      return responses;
    },
  };
}
