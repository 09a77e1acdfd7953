import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';
import { isIPv6 } from 'node:net';
import type { Node } from '@svc/api';
import { decodeResourceMetrics } from './resource-metrics-decoder';
import type { MetricsBatch } from '../storage/metrics-point';

/** A node may set the path of its resource metrics (metrics-server's annotation). */
export const RESOURCE_METRICS_PATH_ANNOTATION = 'metrics.k8s.io/resource-metrics-path';
/** Largest answer read from one node agent: far above what hundreds of pods write. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface NodeScraperOptions {
  port: number;
  useNodeStatusPort: boolean;
  addressTypes: readonly string[];
  timeoutMs: number;
  /** TLS towards the agents: the pinned CA or none, and the client credential. */
  agent: HttpsAgent;
  /** The bearer token, when the credential is one (asked for each request: tokens are renewed). */
  token?: () => Promise<string | undefined>;
}

/** The address of a node of the first preferred type it has, as metrics-server resolves it. */
export function nodeAddress(node: Node, types: readonly string[]): string | undefined {
  const addresses = node.status?.addresses ?? [];
  for (const type of types) {
    const found = addresses.find((a) => a.type === type && a.address);
    if (found) return found.address;
  }
  return undefined;
}

/** Scrapes one node agent's `/metrics/resource` and decodes it. */
export class NodeScraper {
  constructor(private readonly options: NodeScraperOptions) {}

  /** The URL the node's metrics are read from. */
  url(node: Node): string {
    const address = nodeAddress(node, this.options.addressTypes);
    if (!address) throw new Error(`node ${node.metadata?.name ?? ''} has no address of the types ${this.options.addressTypes.join(', ')}`);
    const statusPort = node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
    const port = this.options.useNodeStatusPort && statusPort !== 0 ? statusPort : this.options.port;
    const path = node.metadata?.annotations?.[RESOURCE_METRICS_PATH_ANNOTATION] || '/metrics/resource';
    const host = isIPv6(address) ? `[${address}]` : address;
    return `https://${host}:${port}${path.startsWith('/') ? path : `/${path}`}`;
  }

  async scrape(node: Node): Promise<MetricsBatch> {
    const url = new URL(this.url(node));
    const token = await this.options.token?.();
    const requestTime = Date.now();
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method: 'GET',
          agent: this.options.agent,
          timeout: this.options.timeoutMs,
          headers: { Accept: 'text/plain', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`request failed, status: "${res.statusCode} ${res.statusMessage ?? ''}"`));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              req.destroy(new Error(`response larger than ${MAX_RESPONSE_BYTES} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', reject);
        },
      );
      const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
      req.on('close', () => clearTimeout(deadline));
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`)));
      req.on('error', reject);
      req.end();
    });
    return decodeResourceMetrics(body, requestTime, node.metadata?.name ?? '');
  }
}
