import { request } from 'node:https';
import { COMPONENT_STATUS_RESOURCE } from '@svc/api';
import { newNotFound } from '@svc/machinery';

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

export interface ComponentCondition {
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
function probe(url: string, timeoutMs: number): Promise<ComponentCondition> {
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

async function storeCondition(check: () => Promise<void>): Promise<ComponentCondition> {
  try {
    await check();
    return { type: 'Healthy', status: 'True', message: 'ok' };
  } catch (error) {
    return { type: 'Healthy', status: 'False', error: error instanceof Error ? error.message : String(error) };
  }
}

/** One component's status as `componentstatuses` lists it. */
export interface ComponentHealth {
  metadata: { name: string; creationTimestamp: null };
  conditions: ComponentCondition[];
}

/**
 * Kubernetes' componentstatuses REST (deprecated since 1.19, still served): the scheduler's and the
 * controller manager's health, probed on each read over HTTPS, and the store's. Get and list only.
 */
export class ComponentStatuses {
  private readonly targets: readonly ComponentStatusTarget[];
  private readonly timeoutMs: number;
  /** The names served, sorted. */
  readonly names: readonly string[];

  constructor(private readonly deps: ComponentStatusDependencies) {
    this.targets = deps.targets ?? DEFAULT_COMPONENT_TARGETS;
    this.timeoutMs = deps.timeoutMs ?? 5000;
    this.names = [...this.targets.map((t) => t.name), STORE_NAME].sort();
  }

  /** Every component's status, or the one named (404 for an unknown name). */
  async read(name: string): Promise<ComponentHealth[]> {
    if (name !== '' && !this.names.includes(name)) throw newNotFound({ group: '', resource: COMPONENT_STATUS_RESOURCE.resource }, name);
    const wanted = name === '' ? this.names : [name];
    return Promise.all(
      wanted.map(async (component) => ({ metadata: { name: component, creationTimestamp: null }, conditions: [await this.condition(component)] })),
    );
  }

  private condition(name: string): Promise<ComponentCondition> {
    const target = this.targets.find((t) => t.name === name);
    return target ? probe(target.url, this.timeoutMs) : storeCondition(this.deps.storeHealth);
  }
}
