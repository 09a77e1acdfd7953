import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import type { Pod } from '@svc/api';
import { errorMessage, failureStatus, queryBool, spliceDuplex, StatusReasons } from '@svc/machinery';
import { parseDuration } from '@svc/options';
import type { NodeAgentConfiguration } from '../config/node-agent-configuration';
import type { NodeAgent } from '../node-agent';
import { LABEL_CONTAINER_NAME, LABEL_POD_UID } from '../containers/runtime-labels';
import { SpdySession, type SpdyStream } from '../streaming/spdy-session';
import { dialUpgrade, forwardedUpgradeHeaders, type Upgraded } from '../streaming/upgrade-dial';
import { rejectUpgrade } from './upgrade-refusal';

/** kubectl 1.29+ (v5 adds a close signal per channel); the runtime speaks v4 and older. */
const V5 = 'v5.channel.k8s.io';
/** kubectl 1.31+ tunnels port-forward's SPDY frames in WebSocket messages. */
const PORT_FORWARD_TUNNEL = 'SPDY/3.1+portforward.k8s.io';
const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

function offered(req: IncomingMessage): string[] {
  return (req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

function isWebSocket(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/**
 * exec, attach and port-forward between a client (through the API server) and the runtime's
 * streaming server, whose URL CRI gives. What the runtime speaks itself (SPDY, WebSocket v4) is
 * relayed byte for byte; WebSocket v5 (kubectl's exec) is translated to SPDY streams, and
 * port-forward's WebSocket tunnel unwrapped to the SPDY it carries.
 */
export class StreamingProxy {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, handleProtocols: (protocols) => this.choose(protocols) });
  private readonly idleMs: number;

  constructor(
    private readonly agent: NodeAgent,
    config: NodeAgentConfiguration,
    private readonly log: (message: string) => void,
  ) {
    this.idleMs = parseDuration(config.streamingConnectionIdleTimeout ?? '4h');
    this.wss.on('headers', (headers: string[], req: IncomingMessage) => {
      const protocol = this.protocolOf.get(req);
      if (protocol !== undefined) headers.push(`Sec-WebSocket-Protocol: ${protocol}`);
    });
  }

  private choose(protocols: Set<string>): string | false {
    return protocols.has(V5) ? V5 : false;
  }

  private async runningContainer(pod: Pod, name: string): Promise<string | undefined> {
    const list = await this.agent.cri.listContainers({ labelSelector: { [LABEL_POD_UID]: pod.metadata?.uid ?? '', [LABEL_CONTAINER_NAME]: name } });
    return list.find((c) => c.state === 'CONTAINER_RUNNING')?.id;
  }

  private idle(socket: Duplex & { setTimeout?: (ms: number, cb: () => void) => void }): void {
    if (this.idleMs > 0) socket.setTimeout?.(this.idleMs, () => socket.destroy());
  }

  async execOrAttach(
    kind: 'exec' | 'attach',
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    pod: Pod,
    container: string,
    params: URLSearchParams,
  ): Promise<void> {
    const id = await this.runningContainer(pod, container);
    if (!id) return rejectUpgrade(socket, 400, `container ${container} is not running`);
    const tty = queryBool(params, 'tty');
    const stdin = queryBool(params, 'stdin') || queryBool(params, 'input');
    const stdout = queryBool(params, 'stdout') || queryBool(params, 'output');
    const stderr = !tty && (queryBool(params, 'stderr') || queryBool(params, 'error'));
    const command = params.getAll('command');
    if (kind === 'exec' && command.length === 0) return rejectUpgrade(socket, 400, 'you must specify at least one command for the container');
    if (!stdin && !stdout && !stderr) return rejectUpgrade(socket, 400, 'you must specify at least one of stdin, stdout, stderr');
    const url =
      kind === 'exec'
        ? await this.agent.cri.exec({ containerId: id, cmd: command, tty, stdin, stdout, stderr })
        : await this.agent.cri.attach({ containerId: id, tty, stdin, stdout, stderr });
    if (isWebSocket(req) && offered(req).includes(V5)) return this.translateV5(req, socket, head, url, { stdin, stdout, stderr, tty });
    return this.relay(req, socket, head, url);
  }

  async portForward(req: IncomingMessage, socket: Duplex, head: Buffer, pod: Pod, params: URLSearchParams): Promise<void> {
    const uid = pod.metadata?.uid ?? '';
    const sandbox = (await this.agent.cri.listPodSandbox({ labelSelector: { [LABEL_POD_UID]: uid } })).find((s) => s.state === 'SANDBOX_READY');
    if (!sandbox) return rejectUpgrade(socket, 400, `pod ${pod.metadata?.name} has no running sandbox`);
    const ports = params
      .getAll('port')
      .flatMap((p) => p.split(','))
      .map(Number)
      .filter((p) => Number.isInteger(p) && p > 0 && p < 65536);
    const url = await this.agent.cri.portForward(sandbox.id, ports);
    if (isWebSocket(req) && offered(req).includes(PORT_FORWARD_TUNNEL)) return this.tunnel(req, socket, head, url);
    return this.relay(req, socket, head, url);
  }

  /** Passes the upgrade on to the runtime unchanged and pipes both ways. */
  private async relay(req: IncomingMessage, socket: Duplex, head: Buffer, url: string): Promise<void> {
    let upstream;
    try {
      upstream = await dialUpgrade(url, req.method ?? 'GET', forwardedUpgradeHeaders(req));
    } catch (error) {
      return rejectUpgrade(socket, 502, `cannot reach the runtime's streaming server: ${errorMessage(error)}`);
    }
    socket.write(upstream.head);
    if (upstream.rest.length > 0) socket.write(upstream.rest);
    if (head.length > 0) upstream.socket.write(head);
    if (upstream.status !== 101) {
      upstream.socket.pipe(socket);
      return;
    }
    this.idle(upstream.socket);
    spliceDuplex(upstream.socket, socket);
    upstream.socket.resume();
  }

  private accept(req: IncomingMessage, socket: Duplex, head: Buffer, protocol?: string): Promise<WebSocket> {
    if (protocol !== undefined) {
      // Kubernetes' tunnel protocol name has a '/', which is no token by RFC 6455: ws would refuse it,
      // so the handshake goes without the request's list and the answer names the protocol itself.
      delete req.headers['sec-websocket-protocol'];
      this.protocolOf.set(req, protocol);
    }
    return new Promise((resolve) => this.wss.handleUpgrade(req, socket, head, (ws) => resolve(ws)));
  }

  private readonly protocolOf = new WeakMap<IncomingMessage, string>();

  /** Dials the runtime's streaming server speaking SPDY with `version`; undefined (the client refused) when it cannot. */
  private async dialSpdy(url: string, version: string, socket: Duplex, what: string): Promise<Upgraded | undefined> {
    let upstream: Upgraded;
    try {
      upstream = await dialUpgrade(url, 'POST', { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': version });
    } catch (error) {
      rejectUpgrade(socket, 502, `cannot reach the runtime's streaming server: ${errorMessage(error)}`);
      return undefined;
    }
    if (upstream.status === 101) return upstream;
    upstream.socket.destroy();
    rejectUpgrade(socket, 502, `the runtime refused the ${what} upgrade (${upstream.status})`);
    return undefined;
  }

  /** Port-forward over WebSocket: each binary message carries SPDY bytes, which go to the runtime as they are. */
  private async tunnel(req: IncomingMessage, socket: Duplex, head: Buffer, url: string): Promise<void> {
    const upstream = await this.dialSpdy(url, 'portforward.k8s.io', socket, 'port-forward');
    if (!upstream) return;
    const ws = await this.accept(req, socket, head, PORT_FORWARD_TUNNEL);
    this.idle(upstream.socket);
    if (upstream.rest.length > 0) ws.send(upstream.rest, { binary: true });
    upstream.socket.on('data', (chunk: Buffer) => ws.send(chunk, { binary: true }));
    upstream.socket.resume();
    ws.on('message', (data: RawData) => upstream.socket.write(messageBytes(data)));
    ws.on('close', () => upstream.socket.destroy());
    upstream.socket.on('close', () => ws.close());
    upstream.socket.on('error', () => ws.terminate());
  }

  /** kubectl's WebSocket v5 exec, carried to the runtime as SPDY streams of Kubernetes' v4 protocol. */
  private async translateV5(req: IncomingMessage, socket: Duplex, head: Buffer, url: string, streams: ExecStreams): Promise<void> {
    const upstream = await this.dialSpdy(url, 'v4.channel.k8s.io', socket, 'exec');
    if (!upstream) return;
    const ws = await this.accept(req, socket, head);
    const session = new SpdySession(upstream.socket, true);
    this.idle(upstream.socket);
    if (upstream.rest.length > 0) upstream.socket.unshift(upstream.rest);
    upstream.socket.resume();
    bridgeV5(ws, session, streams);
    ws.on('error', (e) => this.log(`exec stream: ${errorMessage(e)}`));
  }
}

interface ExecStreams {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

function messageBytes(data: RawData): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
}

/** The SPDY streams of an exec, opened in Kubernetes' order: the error stream first, then the others. */
function openExecStreams(session: SpdySession, streams: ExecStreams) {
  return {
    error: session.openStream({ streamtype: 'error' }),
    stdin: streams.stdin ? session.openStream({ streamtype: 'stdin' }) : undefined,
    stdout: streams.stdout ? session.openStream({ streamtype: 'stdout' }) : undefined,
    stderr: streams.stderr ? session.openStream({ streamtype: 'stderr' }) : undefined,
    resize: streams.tty ? session.openStream({ streamtype: 'resize' }) : undefined,
  };
}

function ended(stream: SpdyStream): Promise<void> {
  return new Promise<void>((resolve) => (stream.remoteClosed ? resolve() : stream.once('end', resolve)));
}

/**
 * What the client is told when the runtime's connection ends without an exit status (the runtime
 * always writes one, Success included): a client must never take a broken stream for exit code 0.
 */
const NO_EXIT_STATUS = Buffer.from(
  JSON.stringify(failureStatus(500, StatusReasons.InternalError, "the container runtime's stream ended without an exit status")),
);

/**
 * Joins a v5 WebSocket (one channel byte before each message) to the exec's SPDY streams: output
 * goes out on its channel, input and resizes come in, v5's close of stdin ends it; the exit status
 * (the error stream) is sent last, once the output has drained or a second has passed.
 */
function bridgeV5(ws: WebSocket, session: SpdySession, streams: ExecStreams): void {
  const spdy = openExecStreams(session, streams);
  const send = (channel: number, data: Buffer) => {
    if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), data]), { binary: true });
  };
  spdy.stdout?.on('data', (data: Buffer) => send(CHANNEL.stdout, data));
  spdy.stderr?.on('data', (data: Buffer) => send(CHANNEL.stderr, data));
  let status = Buffer.alloc(0);
  spdy.error.on('data', (data: Buffer) => (status = Buffer.concat([status, data])));
  const outputs = [spdy.stdout, spdy.stderr].filter((s) => s !== undefined);
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    send(CHANNEL.error, status.length > 0 ? status : NO_EXIT_STATUS);
    ws.close(1000);
    session.close();
  };
  void ended(spdy.error)
    .then(() => Promise.race([Promise.all(outputs.map(ended)), new Promise((resolve) => setTimeout(resolve, 1_000))]))
    .then(finish);
  session.on('close', finish);
  ws.on('message', (data: RawData) => {
    const message = messageBytes(data);
    if (message.length === 0) return;
    const payload = message.subarray(1);
    if (message[0] === CHANNEL.stdin) spdy.stdin?.write(payload);
    else if (message[0] === CHANNEL.resize) spdy.resize?.write(payload);
    else if (message[0] === CHANNEL.close && payload[0] === CHANNEL.stdin) spdy.stdin?.end();
  });
  ws.on('close', () => {
    if (finished) return;
    finished = true;
    session.close();
  });
}
