import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { ConnectLocation } from '@svc/api';
import { failureStatus, spliceDuplex, StatusError, StatusReasons } from '@svc/machinery';

/** `--nodeagent-*` of spec 2: how the API server reaches node agents. */
export interface NodeAgentConnectionOptions {
  /** `--nodeagent-client-certificate` and `--nodeagent-client-key`: presented to every node agent. */
  clientCertificate?: string;
  clientKey?: string;
  /** `--nodeagent-certificate-authority`: verifies the agents' serving certificates; unverified when absent, as in Kubernetes. */
  certificateAuthority?: string;
  /** `--nodeagent-preferred-address-types`. */
  preferredAddressTypes: readonly string[];
  /** `--nodeagent-timeout`: connecting and the answer's head; streams themselves are not limited. */
  timeoutMs: number;
}

export const DEFAULT_NODE_AGENT_CONNECTION: NodeAgentConnectionOptions = {
  preferredAddressTypes: ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'],
  timeoutMs: 5_000,
};

interface NodeShape {
  status?: { addresses?: Array<{ type?: string; address?: string }>; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
}

/** The Node object of a name, read from the store (the connector does not know how). */
export type NodeLookup = (name: string) => Promise<NodeShape>;

function unavailable(message: string): StatusError {
  return new StatusError(failureStatus(503, StatusReasons.ServiceUnavailable, message, {}));
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-authenticate',
  'host',
  'authorization',
]);

/**
 * Connections from the API server to node agents (Kubernetes' kubelet client): the node's address by
 * the preferred address types and its agent's port from the Node's daemon endpoints, TLS with the
 * API server's client certificate, and two ways to proxy: a streamed GET (logs) and an upgrade
 * (exec, attach, port-forward) piped byte for byte.
 */
export class NodeAgentConnector {
  private readonly tls: ConnectionOptions;

  constructor(
    private readonly options: NodeAgentConnectionOptions,
    private readonly nodes: NodeLookup,
  ) {
    this.tls = {
      cert: options.clientCertificate ? readFileSync(options.clientCertificate) : undefined,
      key: options.clientKey ? readFileSync(options.clientKey) : undefined,
      ca: options.certificateAuthority ? readFileSync(options.certificateAuthority) : undefined,
      rejectUnauthorized: options.certificateAuthority !== undefined,
    };
  }

  async target(nodeName: string): Promise<{ host: string; port: number }> {
    let node: NodeShape;
    try {
      node = await this.nodes(nodeName);
    } catch {
      throw unavailable(`node "${nodeName}" not found`);
    }
    const addresses = node.status?.addresses ?? [];
    let host: string | undefined;
    for (const type of this.options.preferredAddressTypes) {
      host = addresses.find((a) => a.type === type && a.address)?.address;
      if (host) break;
    }
    if (!host) throw unavailable(`no preferred addresses found; known addresses: [${addresses.map((a) => `{${a.type} ${a.address}}`).join(' ')}]`);
    const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port || 10250;
    return { host, port };
  }

  /** The agent's address and port, with the TLS settings every connection to it uses (a node proxy's). */
  async endpoint(nodeName: string): Promise<{ host: string; port: number; tls: ConnectionOptions }> {
    const target = await this.target(nodeName);
    return { ...target, tls: this.tls };
  }

  private url(location: ConnectLocation, target: { host: string; port: number }): URL {
    const host = isIP(target.host) === 6 ? `[${target.host}]` : target.host;
    const url = new URL(`https://${host}:${target.port}${location.path}`);
    url.search = location.query.toString();
    return url;
  }

  /** A GET whose answer streams back as it comes (a log); a failure of the agent becomes a Status. */
  async stream(location: ConnectLocation, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = await this.target(location.nodeName);
    const url = this.url(location, target);
    await new Promise<void>((resolve, reject) => {
      const upstream = httpsRequest(
        url,
        { method: 'GET', ...this.tls, servername: isIP(target.host) ? undefined : target.host, timeout: this.options.timeoutMs },
        (answer) => {
          upstream.setTimeout(0);
          const status = answer.statusCode ?? 502;
          if (status >= 300) {
            let text = '';
            answer.setEncoding('utf8');
            answer.on('data', (chunk: string) => {
              if (text.length < 4096) text += chunk;
            });
            answer.on('end', () => {
              const reason = status === 404 ? StatusReasons.NotFound : status === 401 || status === 403 ? StatusReasons.Forbidden : StatusReasons.BadRequest;
              reject(new StatusError(failureStatus(status >= 500 ? 500 : status, reason, text.trim() || `the node agent answered ${status}`, {})));
            });
            return;
          }
          res.writeHead(200, { 'Content-Type': answer.headers['content-type'] ?? 'text/plain', 'Transfer-Encoding': 'chunked' });
          res.flushHeaders();
          answer.on('data', (chunk: Buffer) => res.write(chunk));
          answer.on('end', () => {
            res.end();
            resolve();
          });
          answer.on('error', () => {
            res.destroy();
            resolve();
          });
        },
      );
      upstream.on('timeout', () => upstream.destroy(unavailable(`the node agent on ${target.host}:${target.port} did not answer in time`)));
      upstream.on('error', (error) =>
        reject(error instanceof StatusError ? error : unavailable(`cannot reach the node agent on ${target.host}:${target.port}: ${error.message}`)),
      );
      req.on('close', () => upstream.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end();
    });
  }

  /** Sends the client's upgrade request to the agent and pipes both connections once it is sent. */
  async upgrade(location: ConnectLocation, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const target = await this.target(location.nodeName);
    const url = this.url(location, target);
    const upstream = await new Promise<Duplex>((resolve, reject) => {
      const connection = tlsConnect({ host: target.host, port: target.port, servername: isIP(target.host) ? undefined : target.host, ...this.tls });
      const timer = setTimeout(
        () => connection.destroy(unavailable(`the node agent on ${target.host}:${target.port} did not answer in time`)),
        this.options.timeoutMs,
      );
      connection.once('secureConnect', () => {
        clearTimeout(timer);
        resolve(connection);
      });
      connection.once('error', (error: Error) => {
        clearTimeout(timer);
        reject(error instanceof StatusError ? error : unavailable(`cannot reach the node agent on ${target.host}:${target.port}: ${error.message}`));
      });
    });
    const lines = [`${req.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i];
      const lower = name.toLowerCase();
      if (lower === 'connection' || lower === 'upgrade') lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
      else if (!HOP_BY_HOP.has(lower)) lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
    }
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    spliceDuplex(upstream, socket);
  }
}
