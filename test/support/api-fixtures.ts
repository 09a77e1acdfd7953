import type { ConfigMap, Deployment, Lease, Namespace, Pod, Status } from '@svc/api';
import type { ApiClient, ApiResponse } from './api-client';
import { eventually as retryUntil } from '@svc/runtime/testing';

export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

/** Collection and object paths of the kinds the end-to-end tests use. */
export const paths = {
  namespaces: () => '/api/v1/namespaces',
  namespace: (name: string) => `/api/v1/namespaces/${name}`,
  configMaps: (ns: string) => `/api/v1/namespaces/${ns}/configmaps`,
  configMap: (ns: string, name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`,
  pods: (ns: string) => `/api/v1/namespaces/${ns}/pods`,
  pod: (ns: string, name: string) => `/api/v1/namespaces/${ns}/pods/${name}`,
  deployments: (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`,
  deployment: (ns: string, name: string) => `/apis/apps/v1/namespaces/${ns}/deployments/${name}`,
  leases: (ns: string) => `/apis/coordination.svc.io/v1/namespaces/${ns}/leases`,
  lease: (ns: string, name: string) => `/apis/coordination.svc.io/v1/namespaces/${ns}/leases/${name}`,
};

export function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

export function pod(name: string, options: { nodeName?: string; labels?: Record<string, string>; image?: string } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(options.labels ? { labels: options.labels } : {}) },
    spec: {
      ...(options.nodeName ? { nodeName: options.nodeName } : {}),
      containers: [{ name: 'app', image: options.image ?? 'registry.example/app:1.0' }],
    },
  };
}

export function deployment(name: string, options: { replicas?: number; containers?: Array<{ name: string; image: string }> } = {}): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: options.containers ?? [{ name: 'app', image: 'registry.example/app:1.0' }] },
      },
    },
  };
}

export function lease(name: string, holder: string): Lease {
  return { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: holder } };
}

/** Creates a namespace and fails the test with the server's answer if it cannot. */
export async function createNamespace(client: ApiClient, name: string): Promise<Namespace> {
  const res = await client.post<Namespace>(paths.namespaces(), { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  expectStatus(res, 201);
  return res.body;
}

/** Creates an object and returns it as stored; fails with the server's answer otherwise. */
export async function create<T>(client: ApiClient, collection: string, object: unknown): Promise<T> {
  const res = await client.post<T>(collection, object);
  expectStatus(res, 201);
  return res.body;
}

/** Asserts the status code, showing the response body when it differs. */
export function expectStatus(res: ApiResponse<unknown>, status: number): void {
  if (res.status !== status) {
    throw new Error(`expected HTTP ${status}, got ${res.status}: ${res.text.slice(0, 2000)}`);
  }
}

/** Asserts a Status error body with the given code and reason, and returns it. */
export function expectFailure(res: ApiResponse<unknown>, code: number, reason: string): Status {
  expectStatus(res, code);
  const status = res.body as Status;
  expect(res.headers['content-type']).toContain('application/json');
  expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  return status;
}

/** resourceVersion of an object or list. */
export function rvOf(object: { metadata?: { resourceVersion?: string } } | undefined): string {
  const rv = object?.metadata?.resourceVersion;
  if (!rv) throw new Error(`no metadata.resourceVersion in ${JSON.stringify(object)}`);
  return rv;
}

/**
 * Orders two resourceVersions. The interface makes them opaque; this product's are the store's one
 * revision counter (ARCHITECTURE rule 2), which is what "not older than" is checked against.
 */
export function compareRv(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The framework's `eventually`, with the longer defaults a server in another process needs. */
export function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  return retryUntil(check, timeoutMs, intervalMs);
}

/** Unique name per test run, lower-case DNS label. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Sample lines of one Prometheus metric family, as `{labels, value}`. */
export function metricSamples(exposition: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const samples: Array<{ labels: Record<string, string>; value: number }> = [];
  const line = new RegExp(`^${name}(?:\\{(.*)\\})? (\\S+)$`, 'gm');
  for (const match of exposition.matchAll(line)) {
    const labels: Record<string, string> = {};
    for (const pair of (match[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2];
    samples.push({ labels, value: Number(match[2]) });
  }
  return samples;
}
