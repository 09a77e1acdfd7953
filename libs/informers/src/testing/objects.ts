import type { KubeObject } from '../kube-object';

export interface TestPod extends KubeObject {
  metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
  spec?: { nodeName?: string; image?: string };
}

export function pod(namespace: string, name: string, extra: Partial<TestPod> = {}): TestPod {
  return { metadata: { namespace, name, ...extra.metadata }, ...(extra.spec ? { spec: extra.spec } : {}) };
}

/** `namespace/name` -> resourceVersion of each object, for comparing a cache with a server. */
export function versions(items: readonly KubeObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const m = item.metadata ?? {};
    out[m.namespace ? `${m.namespace}/${m.name}` : String(m.name)] = m.resourceVersion ?? '';
  }
  return out;
}
