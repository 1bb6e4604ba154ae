import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** The database vanishes: open connections are cut and new ones refused, as by a stopped server. */
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy in front of a server, so a test can take the database away from the
 * service and give it back without touching the machine's shared PostgreSQL.
 */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server = createServer((client) => {
    track(client);
    const upstream = connect(targetPort, targetHost);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      for (const socket of sockets) socket.destroy();
    });

  await listen(0);
  const port = (server.address() as AddressInfo).port;
  return { port, cut: stop, restore: () => listen(port), close: stop };
}
