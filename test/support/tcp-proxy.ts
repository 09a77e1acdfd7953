import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP relay in front of a server, to cut a client off (a network partition) while
 * other clients keep talking to the server directly.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private blocked = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static start(targetPort: number): Promise<TcpProxy> {
    return new Promise((resolve, reject) => {
      let proxy: TcpProxy;
      const server = createServer((inbound) => {
        if (proxy.blocked) {
          inbound.destroy();
          return;
        }
        const outbound = connect(targetPort, '127.0.0.1');
        for (const [a, b] of [
          [inbound, outbound],
          [outbound, inbound],
        ]) {
          proxy.sockets.add(a);
          a.on('close', () => {
            proxy.sockets.delete(a);
            b.destroy();
          });
          a.on('error', () => b.destroy());
          a.pipe(b);
        }
      });
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        proxy = new TcpProxy(server, (server.address() as AddressInfo).port);
        resolve(proxy);
      });
    });
  }

  /** Drops every connection and refuses new ones. */
  block(): void {
    this.blocked = true;
    for (const socket of this.sockets) socket.destroy();
  }

  unblock(): void {
    this.blocked = false;
  }

  close(): Promise<void> {
    this.block();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
