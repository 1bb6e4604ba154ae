import { connect, createServer, type Socket } from 'node:net';
import { freePort } from './ports.js';

export interface TcpProxy {
  port: number;
  /** Connections open through the proxy now (each one a client and its upstream). */
  readonly connections: number;
  /** The database vanishes: open connections are cut and new ones refused, as by a stopped server. */
  cut(): Promise<void>;
  /** New connections are refused; open ones keep working, as while a server restarts its listener. */
  refuse(): Promise<void>;
  /**
   * Nothing gets through, in either direction, and nothing is closed: open connections and new
   * ones stay silent, as behind a network that drops packets. Bytes sent meanwhile are held
   * and delivered on `restore()`, as TCP retransmits them once the path is back.
   */
  stall(): void;
  /** Accepts and forwards again, delivering what a stall held. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pipe {
  from: Socket;
  to: Socket;
  held: Buffer[];
}

/**
 * A loopback TCP proxy in front of a server, so a test can take the database away from the
 * service and give it back without touching the machine's shared PostgreSQL.
 */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pipes = new Set<Pipe>();
  let stalled = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const forward = (from: Socket, to: Socket) => {
    const pipe: Pipe = { from, to, held: [] };
    pipes.add(pipe);
    from.on('data', (data: Buffer) => {
      if (stalled) pipe.held.push(data);
      else to.write(data);
    });
    from.once('close', () => {
      pipes.delete(pipe);
      to.destroy();
    });
  };
  const server = createServer((client) => {
    track(client);
    const upstream = connect(targetPort, targetHost);
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
  });
  let listening = false;
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      if (listening) {
        resolve();
        return;
      }
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        listening = true;
        resolve();
      });
    });
  // The listener closes at once; open connections are not waited for (refuse keeps them).
  const stopListening = () => {
    if (listening) server.close();
    listening = false;
    return Promise.resolve();
  };
  const cut = async () => {
    await stopListening();
    for (const socket of sockets) socket.destroy();
  };

  // Below the ephemeral range: once refused, the port must still be free for restore().
  const port = await freePort();
  await listen(port);
  return {
    port,
    get connections() {
      return sockets.size / 2;
    },
    cut,
    refuse: stopListening,
    stall: () => {
      stalled = true;
    },
    restore: async () => {
      stalled = false;
      for (const pipe of pipes) for (const data of pipe.held.splice(0)) pipe.to.write(data);
      await listen(port);
    },
    close: cut,
  };
}
