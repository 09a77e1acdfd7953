import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import * as dnsPacket from 'dns-packet';
import type { Answer, Packet, Question } from 'dns-packet';
import type { ClusterAnswer, ClusterRecords } from '../zone/cluster-records';
import type { Forwarder } from './upstream';

const HEADER_BYTES = 12;
/** RFC 1035's limit for a name in text form (253 without the trailing dot). */
const MAX_NAME_CHARS = 253;
/** The UDP answer size without EDNS (RFC 1035), and the most this server sends with it (DNS flag day 2020). */
const UDP_PLAIN = 512;
const UDP_EDNS_MAX = 1232;
/** An idle TCP client is closed after this long (RFC 7766 suggests seconds). */
export const TCP_IDLE_MS = 10_000;
/** Queries answered over one TCP connection before it is closed, so one client cannot hold a connection forever. */
export const TCP_MAX_QUERIES = 1000;

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

export interface DnsServerOptions {
  records: ClusterRecords;
  forwarder: Forwarder;
  maxTcpConnections: number;
  log: (line: string) => void;
}

/** What to send back for one query, or undefined to stay silent (a datagram too short to be a query, or a response). */
export async function answerQuery(query: Buffer, overTcp: boolean, options: Pick<DnsServerOptions, 'records' | 'forwarder'>): Promise<Buffer | undefined> {
  if (query.length < HEADER_BYTES) return undefined;
  const id = query.readUInt16BE(0);
  const flags = query.readUInt16BE(2);
  if (flags & 0x8000) return undefined; // a response: answering it could loop between two servers
  const rd = flags & dnsPacket.RECURSION_DESIRED;
  const opcode = (flags >> 11) & 0xf;
  const bare = (rcode: number) => dnsPacket.encode({ type: 'response', id, flags: rd | dnsPacket.RECURSION_AVAILABLE | (opcode << 11) | rcode });
  if (opcode !== 0) return bare(RCODE.NOTIMP);
  // The counts are checked before the decoder sees the packet: one question, no answers, at most OPT and a signature.
  const [qd, an, ns, ar] = [query.readUInt16BE(4), query.readUInt16BE(6), query.readUInt16BE(8), query.readUInt16BE(10)];
  if (qd !== 1 || an !== 0 || ns !== 0 || ar > 2) return bare(RCODE.FORMERR);
  let packet: Packet;
  try {
    packet = dnsPacket.decode(query);
  } catch {
    return bare(RCODE.FORMERR);
  }
  const question = packet.questions?.[0];
  if (!question || question.name.length > MAX_NAME_CHARS || (packet.additionals ?? []).filter((a) => a.type === 'OPT').length > 1) return bare(RCODE.FORMERR);
  const opt = (packet.additionals ?? []).find((a) => a.type === 'OPT') as { udpPayloadSize?: number } | undefined;

  const cluster = options.records.answer(question);
  if (cluster === undefined) {
    const reply = await options.forwarder.forward(query, overTcp);
    if (reply) return reply;
    return dnsPacket.encode({
      type: 'response',
      id,
      flags: rd | dnsPacket.RECURSION_AVAILABLE | (options.forwarder.servers.length ? RCODE.SERVFAIL : RCODE.REFUSED),
      questions: [question],
    });
  }
  const chased = await followCnames(question, cluster, overTcp, options);
  const additionals: Answer[] = [...chased.additionals];
  if (opt) additionals.push({ type: 'OPT', name: '.', udpPayloadSize: UDP_EDNS_MAX, flags: 0, options: [] } as unknown as Answer);
  const response: Packet = {
    type: 'response',
    id,
    flags: dnsPacket.AUTHORITATIVE_ANSWER | rd | dnsPacket.RECURSION_AVAILABLE | RCODE[chased.rcode],
    questions: [question],
    answers: chased.answers,
    authorities: chased.authorities,
    additionals,
  };
  const encoded = dnsPacket.encode(response);
  if (overTcp) return encoded;
  const limit = opt ? Math.min(Math.max(opt.udpPayloadSize ?? UDP_PLAIN, UDP_PLAIN), UDP_EDNS_MAX) : UDP_PLAIN;
  if (encoded.length <= limit) return encoded;
  // Too large for the datagram: the question alone, with TC set, sends the client to TCP.
  return dnsPacket.encode({
    ...response,
    flags: (response.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE,
    answers: [],
    authorities: [],
    additionals: opt ? additionals.slice(-1) : [],
  });
}

/** The most CNAMEs followed for one answer: ExternalName Services may point at each other, or at themselves. */
export const MAX_CNAME_CHAIN = 8;

/**
 * An ExternalName's CNAME followed to the addresses asked for, as CoreDNS does: a stub resolver (the C
 * library's) asks for an address and does not chase a CNAME itself. A target in the cluster's zone is
 * answered here; one outside it is asked of the upstreams, whose records of the type asked (and CNAMEs)
 * are added. With no upstream answering, the CNAMEs alone are the answer.
 */
async function followCnames(
  question: Question,
  answer: ClusterAnswer,
  overTcp: boolean,
  options: Pick<DnsServerOptions, 'records' | 'forwarder'>,
): Promise<ClusterAnswer> {
  const asked: string = question.type;
  if (asked === 'CNAME' || asked === 'ANY') return answer;
  let chased = answer;
  const seen = new Set([question.name.toLowerCase().replace(/\.$/, '')]);
  for (let hops = 0; hops < MAX_CNAME_CHAIN; hops++) {
    const last = chased.answers.at(-1);
    if (last?.type !== 'CNAME' || typeof last.data !== 'string') return chased;
    const target = last.data.toLowerCase().replace(/\.$/, '');
    if (seen.has(target)) return chased;
    seen.add(target);
    const local = options.records.answer({ name: target, type: question.type, class: 'IN' });
    if (local) {
      chased = { ...local, answers: [...chased.answers, ...local.answers], additionals: [...chased.additionals, ...local.additionals] };
      continue;
    }
    const id = Math.floor(Math.random() * 0x10000);
    const reply = await options.forwarder.forward(
      dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: target, type: question.type, class: 'IN' }] }),
      overTcp,
    );
    let decoded: Packet | undefined;
    try {
      decoded = reply ? dnsPacket.decode(reply) : undefined;
    } catch {
      decoded = undefined;
    }
    if (!decoded) return chased;
    // The upstream follows its own chain: its CNAMEs and the records asked for, nothing else.
    const found = (decoded.answers ?? []).filter((a) => a.type === asked || a.type === 'CNAME');
    const rcode = (decoded as { rcode?: string }).rcode === 'NXDOMAIN' ? 'NXDOMAIN' : 'NOERROR';
    return { rcode, answers: [...chased.answers, ...found], authorities: [], additionals: chased.additionals };
  }
  return chased;
}

/** The cluster DNS over UDP and TCP on one port. */
export class DnsServer {
  private udp?: UdpSocket;
  private tcp?: Server;
  private readonly connections = new Set<Socket>();

  constructor(private readonly options: DnsServerOptions) {}

  /** Binds UDP, then TCP on the same port (port 0: the port UDP got, trying again if TCP finds it taken). */
  async start(host: string, port: number): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const udpPort = await this.bindUdp(host, port);
      try {
        await this.bindTcp(host, udpPort);
        return udpPort;
      } catch (error) {
        this.udp?.close();
        if (port !== 0 || attempt >= 5) throw error;
      }
    }
  }

  async stop(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await Promise.all([
      new Promise<void>((resolve) => (this.udp ? this.udp.close(() => resolve()) : resolve())),
      new Promise<void>((resolve) => (this.tcp ? this.tcp.close(() => resolve()) : resolve())),
    ]);
  }

  private bindUdp(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const socket = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4' });
      socket.once('error', reject);
      socket.on('message', (message, from) => {
        answerQuery(message, false, this.options)
          .then((reply) => reply && socket.send(reply, from.port, from.address))
          .catch((error: Error) => this.options.log(`udp query from ${from.address}: ${error.message}`));
      });
      socket.bind(port, host, () => {
        socket.off('error', reject);
        socket.on('error', (error) => this.options.log(`udp: ${error.message}`));
        this.udp = socket;
        resolve(socket.address().port);
      });
    });
  }

  private bindTcp(host: string, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const server = createServer((socket) => this.serveConnection(socket));
      server.maxConnections = this.options.maxTcpConnections;
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        this.tcp = server;
        resolve();
      });
    });
  }

  /** Length-prefixed queries (RFC 1035 4.2.2), answered in order; a connection holds at most one message's bytes. */
  private serveConnection(socket: Socket): void {
    this.connections.add(socket);
    socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
    socket.on('close', () => this.connections.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered: Buffer = Buffer.alloc(0);
    let answered = 0;
    let chain = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      while (buffered.length >= 2) {
        const length = buffered.readUInt16BE(0);
        if (buffered.length < 2 + length) break;
        const message = buffered.subarray(2, 2 + length);
        buffered = buffered.subarray(2 + length);
        if (++answered > TCP_MAX_QUERIES) {
          socket.end();
          return;
        }
        chain = chain.then(async () => {
          const reply = await answerQuery(message, true, this.options).catch(() => undefined);
          if (!reply || socket.destroyed) return;
          const prefix = Buffer.alloc(2);
          prefix.writeUInt16BE(reply.length);
          socket.write(Buffer.concat([prefix, reply]));
        });
      }
      // Replies still owed hold the reading back, so a client that never reads cannot queue without end.
      if (socket.writableLength > 64 * 1024) socket.pause();
    });
    socket.on('drain', () => socket.resume());
  }
}
