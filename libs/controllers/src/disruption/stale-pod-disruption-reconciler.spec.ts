import type { Pod } from '@svc/api';
import { STALE_POD_DISRUPTION_TIMEOUT_MS, staleDisruptionCondition } from './stale-pod-disruption-reconciler';
import { at, NOW, pod } from './pod-fixture';

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
