import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'node:https';
import { COMPONENT_STATUS_RESOURCE } from '@svc/api';
import { isStatusError, newNotFound } from '@svc/machinery';
import { negotiateOutput } from '../resources/negotiation';
import { writeBody } from '../resources/response-writer';
import { requestContext } from '../request/request-context';
import { methodNotAllowedStatus } from '../status/status';
import { writeStatus } from '../status/write-status';

type Handler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

export interface ComponentStatusTarget {
  name: string;
  /** The component's health URL, e.g. `https://127.0.0.1:10259/healthz`. */
  url: string;
}

export interface ComponentStatusDependencies {
  /** The store's own check; resolves when it is healthy. */
  storeHealth: () => Promise<void>;
  /** The components probed over HTTPS; Kubernetes' defaults when absent. */
  targets?: readonly ComponentStatusTarget[];
  timeoutMs?: number;
}

/** Where kube-apiserver looks for the scheduler and the controller manager: their default secure ports on loopback. */
export const DEFAULT_COMPONENT_TARGETS: readonly ComponentStatusTarget[] = [
  { name: 'controller-manager', url: 'https://127.0.0.1:10257/healthz' },
  { name: 'scheduler', url: 'https://127.0.0.1:10259/healthz' },
];

/** The name the store answers under, as Kubernetes names its first etcd server. */
const STORE_NAME = 'etcd-0';

interface Condition {
  type: 'Healthy';
  status: 'True' | 'False';
  message?: string;
  error?: string;
}

/** Go's wording of a failed GET, which is what Kubernetes puts in `error`. */
function probeError(url: string, error: NodeJS.ErrnoException): string {
  const { host } = new URL(url);
  if (error.code === 'ECONNREFUSED') return `Get "${url}": dial tcp ${host}: connect: connection refused`;
  if (error.code === 'ETIMEDOUT') return `Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
  return `Get "${url}": ${error.message}`;
}

/** An HTTP probe as Kubernetes' componentstatus runs it: certificates unchecked, 2xx and 3xx healthy. */
function probe(url: string, timeoutMs: number): Promise<Condition> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', rejectUnauthorized: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < 4096) body += chunk;
      });
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        if (code >= 200 && code < 400) resolve({ type: 'Healthy', status: 'True', message: body });
        else resolve({ type: 'Healthy', status: 'False', error: `HTTP probe failed with statuscode: ${code}` });
      });
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ type: 'Healthy', status: 'False', error: probeError(url, error) }));
    req.end();
  });
}

async function storeCondition(check: () => Promise<void>): Promise<Condition> {
  try {
    await check();
    return { type: 'Healthy', status: 'True', message: 'ok' };
  } catch (error) {
    return { type: 'Healthy', status: 'False', error: error instanceof Error ? error.message : String(error) };
  }
}

const COLUMNS = [
  { name: 'Name', type: 'string', format: 'name', description: 'The name of the component.', priority: 0 },
  { name: 'Status', type: 'string', format: '', description: 'Status of the component conditions', priority: 0 },
  { name: 'Message', type: 'string', format: '', description: 'Message of the component conditions', priority: 0 },
  { name: 'Error', type: 'string', format: '', description: 'Error of the component conditions', priority: 0 },
];

/**
 * `GET /api/v1/componentstatuses[/<name>]`: the scheduler's and the controller manager's health,
 * probed on each read, and the store's. Deprecated in Kubernetes since 1.19 and still served, with
 * the Warning it sends; list and get only.
 */
export function withComponentStatuses(deps: ComponentStatusDependencies): Handler {
  const targets = deps.targets ?? DEFAULT_COMPONENT_TARGETS;
  const timeoutMs = deps.timeoutMs ?? 5000;
  const resource = COMPONENT_STATUS_RESOURCE;
  const names = [...targets.map((t) => t.name), STORE_NAME].sort();
  const condition = (name: string) => {
    const target = targets.find((t) => t.name === name);
    return target ? probe(target.url, timeoutMs) : storeCondition(deps.storeHealth);
  };
  return (req, res, next) => {
    const { info } = requestContext(req);
    if (!info.isResourceRequest || info.apiPrefix !== 'api' || info.version !== resource.version || info.resource !== resource.resource) return next();
    if (info.namespace !== '' || info.subresource !== '') return next();
    res.setHeader('Warning', `299 - "${resource.deprecationWarning}"`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return writeStatus(res, methodNotAllowedStatus());
    void (async () => {
      try {
        if (info.name !== '' && !names.includes(info.name)) throw newNotFound({ group: '', resource: resource.resource }, info.name);
        const wanted = info.name === '' ? names : [info.name];
        const items = await Promise.all(wanted.map(async (name) => ({ metadata: { name, creationTimestamp: null }, conditions: [await condition(name)] })));
        // A built-in kind with a message: a client-go client asking for protobuf gets it.
        const format = negotiateOutput(req.headers.accept, { verb: info.name === '' ? 'list' : 'get', protobuf: true }, false);
        let body: unknown;
        if (format.view?.as === 'Table') {
          body = {
            kind: 'Table',
            apiVersion: format.view.apiVersion,
            metadata: {},
            columnDefinitions: COLUMNS,
            rows: items.map((item) => {
              const c = item.conditions[0];
              return {
                cells: [item.metadata.name, c.status === 'True' ? 'Healthy' : 'Unhealthy', c.message ?? '', c.error ?? ''],
                object: { kind: 'PartialObjectMetadata', apiVersion: format.view!.apiVersion, metadata: item.metadata },
              };
            }),
          };
        } else if (info.name === '') {
          body = { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items };
        } else {
          body = { kind: 'ComponentStatus', apiVersion: 'v1', ...items[0] };
        }
        writeBody(res, 200, body, format);
      } catch (error) {
        if (isStatusError(error)) writeStatus(res, error.status);
        else next(error);
      }
    })();
  };
}
