import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { connect, isIP, isIPv4 } from 'node:net';
import { networkInterfaces } from 'node:os';

/** The most forwarded queries in flight at once; more are answered SERVFAIL rather than queued without end. */
export const MAX_FORWARDS_IN_FLIGHT = 1024;
const MAX_UPSTREAMS = 3; // resolv.conf's MAXNS: the resolver reads no more

/**
 * The nameservers of a resolv.conf (at most three, as the C resolver reads), leaving out the one
 * this server is itself (its address and port), so a forwarded query never comes back to it.
 */
export function upstreamsFrom(resolvConf: string, self: { host: string; port: number }): string[] {
  const local = new Set(['127.0.0.1', '::1', ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address))]);
  const wildcard = self.host === '0.0.0.0' || self.host === '::';
  const out: string[] = [];
  for (const line of resolvConf.split('\n')) {
    const match = /^\s*nameserver\s+(\S+)/.exec(line);
    if (!match) continue;
    const address = match[1].replace(/%.*$/, '');
    if (!isIP(address)) continue;
    const isSelf = self.port === 53 && (address === self.host || (wildcard && local.has(address)));
    if (!isSelf && !out.includes(address)) out.push(address);
    if (out.length === MAX_UPSTREAMS) break;
  }
  return out;
}

/** Reads the nameservers of a resolv.conf file; none when it is missing. */
export function readUpstreams(path: string, self: { host: string; port: number }): string[] {
  if (!path) return [];
  try {
    return upstreamsFrom(readFileSync(path, 'utf8'), self);
  } catch {
    return [];
  }
}

/** Forwards queries for names outside the cluster to the host's resolvers, one after another until one answers. */
export class Forwarder {
  private inFlight = 0;

  constructor(
    readonly servers: readonly string[],
    private readonly timeoutMs: number,
    private readonly port = 53,
  ) {}

  /** The upstream's reply to the query (its ID left as the client's), or undefined when none answered. */
  async forward(query: Buffer, overTcp: boolean): Promise<Buffer | undefined> {
    if (this.servers.length === 0 || this.inFlight >= MAX_FORWARDS_IN_FLIGHT) return undefined;
    this.inFlight++;
    try {
      for (const server of this.servers) {
        const reply = await this.udp(server, query).catch(() => undefined);
        // A truncated reply to a client on TCP is asked again over TCP, as a stub resolver would.
        if (reply && overTcp && (reply[2] & 0x02) !== 0) {
          const full = await this.tcp(server, query).catch(() => undefined);
          if (full) return full;
        }
        if (reply) return reply;
      }
      return undefined;
    } finally {
      this.inFlight--;
    }
  }

  private udp(server: string, query: Buffer): Promise<Buffer | undefined> {
    return new Promise((resolve) => {
      const socket = createSocket(isIPv4(server) ? 'udp4' : 'udp6');
      const done = (reply: Buffer | undefined) => {
        clearTimeout(timer);
        socket.close();
        resolve(reply);
      };
      const timer = setTimeout(() => done(undefined), this.timeoutMs);
      socket.on('error', () => done(undefined));
      socket.on('message', (reply, from) => {
        // Only the server asked, with the query's ID, may answer it.
        if (from.address !== server || reply.length < 12 || reply.readUInt16BE(0) !== query.readUInt16BE(0)) return;
        done(reply);
      });
      socket.send(query, this.port, server);
    });
  }

  private tcp(server: string, query: Buffer): Promise<Buffer | undefined> {
    return new Promise((resolve) => {
      const socket = connect({ host: server, port: this.port });
      let buffered: Buffer = Buffer.alloc(0);
      const done = (reply: Buffer | undefined) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(reply);
      };
      const timer = setTimeout(() => done(undefined), this.timeoutMs);
      socket.on('error', () => done(undefined));
      socket.on('connect', () => {
        const length = Buffer.alloc(2);
        length.writeUInt16BE(query.length);
        socket.write(Buffer.concat([length, query]));
      });
      socket.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        if (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) done(buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
      });
    });
  }
}
