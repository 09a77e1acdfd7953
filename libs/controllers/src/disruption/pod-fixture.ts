import { metaTime } from '@svc/machinery';
import type { Pod } from '@svc/api';

// A pod as the disruption controller's specs vary it: labels, readiness, phase, deletion and controller.
export const NOW = Date.parse('2026-01-01T12:00:00Z');
export const at = metaTime;

export function pod(
  rv: string,
  changes: { labels?: Record<string, string>; ready?: boolean; phase?: NonNullable<Pod['status']>['phase']; deleting?: boolean; owner?: string } = {},
): Pod {
  return {
    metadata: {
      name: 'p',
      namespace: 'ns',
      resourceVersion: rv,
      labels: changes.labels ?? { app: 'web' },
      ...(changes.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: changes.owner, uid: changes.owner, controller: true }] } : {}),
      ...(changes.deleting ? { deletionTimestamp: at(NOW) } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
    status: { phase: changes.phase ?? 'Running', conditions: [{ type: 'Ready', status: changes.ready === false ? 'False' : 'True' }] },
  };
}
