import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Pod } from '@svc/api';
import { queryBool } from '@svc/machinery';
import { LABEL_CONTAINER_NAME, LABEL_POD_UID } from '../containers/runtime-labels';
import type { NodeAgentConfiguration } from '../config/node-agent-configuration';
import type { NodeAgent } from '../node-agent';
import { streamContainerLog, type LogOptions } from './container-logs';
import { NodeAgentMetrics } from './node-agent-metrics';
import { rejectUpgrade } from './upgrade-refusal';
import { StreamingProxy } from './streaming-proxy';

function segments(path: string): string[] {
  return path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
}

function intParam(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new BadRequest(`${name}: must be a non-negative integer`);
  return n;
}

class BadRequest extends Error {}

/** The node agent's HTTP endpoints (Kubernetes' kubelet paths), behind authentication and authorization. */
export class NodeAgentHandlers {
  private readonly metrics: NodeAgentMetrics;
  private readonly streaming: StreamingProxy;

  constructor(
    private readonly agent: NodeAgent,
    private readonly config: NodeAgentConfiguration,
    private readonly log: (message: string) => void,
  ) {
    this.metrics = new NodeAgentMetrics(agent);
    this.streaming = new StreamingProxy(agent, config, log);
  }

  fail(res: ServerResponse, code: number, message: string): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${message}\n`);
  }

  healthz(res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('ok');
  }

  /** The pod this node runs with that namespace and name. */
  findPod(namespace: string, name: string): Pod | undefined {
    return this.agent.pods.pods().find((p) => p.metadata?.namespace === namespace && p.metadata?.name === name);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://node');
    const parts = segments(url.pathname);
    const method = req.method ?? 'GET';
    try {
      if (url.pathname === '/healthz') return this.healthz(res);
      if (parts[0] === 'pods' && parts.length === 1 && method === 'GET') {
        const body = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: this.agent.pods.pods() });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
        return;
      }
      if (url.pathname === '/metrics' && method === 'GET') {
        const text = await this.metrics.render();
        res.writeHead(200, { 'Content-Type': this.metrics.contentType }).end(text);
        return;
      }
      if (parts[0] === 'containerLogs' && parts.length === 4 && method === 'GET')
        return await this.containerLogs(req, res, parts[1], parts[2], parts[3], url.searchParams);
      if (['exec', 'attach', 'portForward'].includes(parts[0])) {
        if (!(this.config.enableDebuggingHandlers ?? true)) return this.fail(res, 404, 'debugging handlers are disabled (enableDebuggingHandlers)');
        return this.fail(res, 400, 'Upgrade request required');
      }
      this.fail(res, 404, '404 page not found');
    } catch (error) {
      if (error instanceof BadRequest) return this.fail(res, 400, error.message);
      throw error;
    }
  }

  async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    if (!(this.config.enableDebuggingHandlers ?? true)) return rejectUpgrade(socket, 404, 'debugging handlers are disabled (enableDebuggingHandlers)');
    const url = new URL(req.url ?? '/', 'https://node');
    const parts = segments(url.pathname);
    const kind = parts[0];
    if ((kind === 'exec' || kind === 'attach') && (parts.length === 4 || parts.length === 5)) {
      const pod = this.findPod(parts[1], parts.length === 5 ? parts[2] : parts[2]);
      if (!pod) return rejectUpgrade(socket, 404, `pod ${parts[1]}/${parts[2]} not found on this node`);
      const container = parts.length === 5 ? parts[4] : parts[3];
      return this.streaming.execOrAttach(kind, req, socket, head, pod, container, url.searchParams);
    }
    if (kind === 'portForward' && parts.length === 3) {
      const pod = this.findPod(parts[1], parts[2]);
      if (!pod) return rejectUpgrade(socket, 404, `pod ${parts[1]}/${parts[2]} not found on this node`);
      return this.streaming.portForward(req, socket, head, pod, url.searchParams);
    }
    rejectUpgrade(socket, 404, '404 page not found');
  }

  private async containerLogs(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    podName: string,
    containerName: string,
    params: URLSearchParams,
  ): Promise<void> {
    const pod = this.findPod(namespace, podName);
    if (!pod) return this.fail(res, 404, `pod ${namespace}/${podName} not found on this node`);
    const specs = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []), ...(pod.spec?.ephemeralContainers ?? [])];
    const known = specs.some((c) => c.name === containerName);
    if (!known) return this.fail(res, 404, `container ${containerName} is not valid for pod ${podName}`);
    const previous = queryBool(params, 'previous');
    const sinceSeconds = intParam(params, 'sinceSeconds');
    const sinceTimeText = params.get('sinceTime');
    const sinceTime = sinceTimeText ? Date.parse(sinceTimeText) : sinceSeconds !== undefined ? Date.now() - sinceSeconds * 1000 : undefined;
    if (sinceTime !== undefined && Number.isNaN(sinceTime)) return this.fail(res, 400, 'sinceTime: must be an RFC 3339 time');
    const options: LogOptions = {
      follow: queryBool(params, 'follow'),
      tailLines: intParam(params, 'tailLines'),
      sinceTime,
      timestamps: queryBool(params, 'timestamps'),
      limitBytes: intParam(params, 'limitBytes'),
    };
    const cri = this.agent.cri;
    const containers = (await cri.listContainers({ labelSelector: { [LABEL_POD_UID]: pod.metadata?.uid ?? '', [LABEL_CONTAINER_NAME]: containerName } })).sort(
      (a, b) => b.createdAt - a.createdAt,
    );
    const target = containers[previous ? 1 : 0];
    if (!target) {
      const message = previous
        ? `previous terminated container "${containerName}" in pod "${podName}" not found`
        : `container "${containerName}" in pod "${podName}" is waiting to start: ContainerCreating`;
      return this.fail(res, 400, message);
    }
    const status = await cri.containerStatus(target.id);
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Transfer-Encoding': 'chunked' });
    const abort = new AbortController();
    req.on('close', () => abort.abort());
    res.on('close', () => abort.abort());
    const stillRunning = async () => {
      const now = await cri.containerStatus(target.id).catch(() => undefined);
      return now?.state === 'CONTAINER_RUNNING';
    };
    await streamContainerLog(status.logPath, options, res, stillRunning, abort.signal);
    res.end();
  }
}
