import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * How the receiver answers its nth request (0-based): a status, a status once the promise
 * settles (a slow endpoint), or never ('hang').
 */
export type Behaviour = (n: number, req: IncomingMessage) => number | 'hang' | Promise<number>;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Requests that arrived, answered or not. */
  count(): number;
  /** Every request verified with the secret (Webhook.verify throws on a bad one). */
  verifyAll(secret: string): void;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP receiver on loopback, as an integrator runs one. */
export async function startReceiver(behaviour: Behaviour = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answer = behaviour(n++, req);
      received.push({
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      const respond = (status: number) => {
        if (status >= 300 && status < 400) res.setHeader('location', 'http://127.0.0.1:9/');
        res.writeHead(status).end();
      };
      if (typeof answer === 'number') {
        respond(answer);
        return;
      }
      hanging.add(res);
      void answer.then((status) => {
        hanging.delete(res);
        if (!res.destroyed) respond(status);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    count: () => received.length,
    verifyAll(secret) {
      const webhook = new Webhook(secret);
      for (const { body, headers } of received) webhook.verify(body, headers);
    },
    async waitFor(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > until) {
          throw new Error(`received ${received.length} of ${count} within ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}
