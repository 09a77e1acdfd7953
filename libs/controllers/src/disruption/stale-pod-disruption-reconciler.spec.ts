import type { Pod } from '@svc/api';
import { STALE_POD_DISRUPTION_TIMEOUT_MS, staleDisruptionCondition } from './stale-pod-disruption-reconciler';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function pod(
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

describe('staleDisruptionCondition', () => {
  const marked = (reason: string, sinceMs: number, changes: Parameters<typeof pod>[1] = {}): Pod => {
    const p = pod('1', changes);
    p.status!.conditions!.push({ type: 'DisruptionTarget', status: 'True', reason, lastTransitionTime: at(NOW - sinceMs) });
    return p;
  };

  it('is stale two minutes after the condition turned True, on a pod still running and not being deleted', () => {
    expect(staleDisruptionCondition(marked('EvictionByEvictionAPI', 30_000), NOW)).toEqual({ has: true, waitMs: STALE_POD_DISRUPTION_TIMEOUT_MS - 30_000 });
    expect(staleDisruptionCondition(marked('EvictionByEvictionAPI', 200_000), NOW)).toEqual({ has: true, waitMs: 0 });
  });

  it("leaves the node agent's mark, pods being deleted and finished pods alone", () => {
    expect(staleDisruptionCondition(marked('TerminationByKubelet', 200_000), NOW).has).toBe(false);
    expect(staleDisruptionCondition(marked('EvictionByEvictionAPI', 200_000, { deleting: true }), NOW).has).toBe(false);
    expect(staleDisruptionCondition(marked('EvictionByEvictionAPI', 200_000, { phase: 'Failed' }), NOW).has).toBe(false);
    expect(staleDisruptionCondition(pod('1'), NOW).has).toBe(false);
  });
});
