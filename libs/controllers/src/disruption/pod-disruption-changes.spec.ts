import type { Pod } from '@svc/api';
import { podDisruptionChanged } from './pod-disruption-changes';

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

describe('podDisruptionChanged', () => {
  it('wakes budgets for labels, deletion, readiness and controller changes only', () => {
    expect(podDisruptionChanged(pod('1'), pod('1', { ready: false }))).toBe(false);
    expect(podDisruptionChanged(pod('1'), pod('2'))).toBe(false);
    expect(podDisruptionChanged(pod('1'), pod('2', { phase: 'Pending' }))).toBe(false);
    expect(podDisruptionChanged(pod('1'), pod('2', { labels: { app: 'db' } }))).toBe(true);
    expect(podDisruptionChanged(pod('1'), pod('2', { ready: false }))).toBe(true);
    expect(podDisruptionChanged(pod('1'), pod('2', { deleting: true }))).toBe(true);
    expect(podDisruptionChanged(pod('1'), pod('2', { owner: 'rs' }))).toBe(true);
  });
});
