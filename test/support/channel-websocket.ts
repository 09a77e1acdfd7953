import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import WebSocket from 'ws';
import type { ApiServerProcess } from './apiserver-process';

interface KubeconfigUser {
  token?: string;
  'client-certificate-data'?: string;
  'client-key-data'?: string;
}

/** A frame of Kubernetes' channel protocols: the channel byte, then the payload. */
export interface ChannelFrame {
  channel: number;
  data: Buffer;
}

/**
 * A client of Kubernetes' WebSocket channel protocols (`v4.channel.k8s.io`, `v5.channel.k8s.io`,
 * `portforward.k8s.io`) as the official Python client speaks them: one binary message per write,
 * its first byte the channel; every frame received is kept in order.
 */
export interface ChannelSocket {
  protocol: string;
  frames: ChannelFrame[];
  send(channel: number, data: Buffer | string): void;
  /** All bytes received on a channel so far. */
  received(channel: number): Buffer;
  /** Resolves once `test` holds for the frames, or rejects after the time with what came. */
  waitFor(test: (socket: ChannelSocket) => boolean, timeoutMs?: number): Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export async function openChannelSocket(apiserver: ApiServerProcess, path: string, protocols: string[]): Promise<ChannelSocket> {
  const config = parseYaml(await readFile(apiserver.kubeconfig, 'utf8')) as { users: Array<{ user: KubeconfigUser }> };
  const user = config.users[0].user;
  const headers: Record<string, string> = {};
  if (user.token) headers.Authorization = `Bearer ${user.token}`;
  const ws = new WebSocket(`${apiserver.url.replace(/^https/, 'wss')}${path}`, protocols, {
    ca: apiserver.ca,
    cert: user['client-certificate-data'] ? Buffer.from(user['client-certificate-data'], 'base64') : undefined,
    key: user['client-key-data'] ? Buffer.from(user['client-key-data'], 'base64') : undefined,
    headers,
    perMessageDeflate: false,
  });
  const frames: ChannelFrame[] = [];
  const waiters = new Set<() => void>();
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const w of [...waiters]) w();
    }),
  );
  ws.on('message', (data: Buffer) => {
    frames.push({ channel: data[0], data: data.subarray(1) });
    for (const w of [...waiters]) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(new Error(`upgrade refused: ${res.statusCode} ${body}`)));
    });
  });
  let finished = false;
  void closed.then(() => (finished = true));
  const socket: ChannelSocket = {
    protocol: ws.protocol,
    frames,
    send: (channel, data) => ws.send(Buffer.concat([Buffer.from([channel]), Buffer.from(data)]), { binary: true }),
    received: (channel) => Buffer.concat(frames.filter((f) => f.channel === channel).map((f) => f.data)),
    waitFor: (test, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (test(socket)) done(resolve);
          else if (finished) done(() => reject(new Error(`closed before the frames matched: ${describe()}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`frames did not match in ${timeoutMs} ms: ${describe()}`))), timeoutMs);
        function done(then: () => void) {
          clearTimeout(timer);
          waiters.delete(check);
          then();
        }
        waiters.add(check);
        check();
      }),
    closed,
    close: () => ws.close(),
  };
  const describe = () => JSON.stringify(frames.map((f) => [f.channel, f.data.toString('latin1')]));
  return socket;
}
