import type { Pod } from '@svc/api';
import { podChangeNeedsSync } from './pod-worker';

function pod(change: (p: Pod) => void = () => undefined): Pod {
  const p: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '10', labels: { app: 'web' } },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] },
    status: { phase: 'Pending' },
  };
  change(p);
  return p;
}

describe('which changes of a pod sync it', () => {
  it('does not sync for a change of status, resourceVersion or managed fields alone (its own status write coming back)', () => {
    const next = pod((p) => {
      p.metadata!.resourceVersion = '11';
      p.metadata!.managedFields = [{ manager: 'svc-node-agent', operation: 'Update', subresource: 'status' }];
      p.status = { phase: 'Running', podIP: '10.0.0.5', conditions: [{ type: 'Ready', status: 'True' }] };
    });
    expect(podChangeNeedsSync(pod(), next)).toBe(false);
  });

  it.each<[string, (p: Pod) => void]>([
    ['the spec', (p) => (p.spec.containers[0].image = 'busybox:2')],
    ['a label', (p) => (p.metadata!.labels = { app: 'web', tier: 'front' })],
    ['an annotation', (p) => (p.metadata!.annotations = { note: 'x' })],
    ['the deletion timestamp', (p) => (p.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z')],
    ['the deletion grace period', (p) => (p.metadata!.deletionGracePeriodSeconds = 0)],
    ['a finished phase set from outside', (p) => (p.status = { phase: 'Failed' })],
  ])('syncs for a change of %s', (_what, change) => {
    expect(podChangeNeedsSync(pod(), pod(change))).toBe(true);
  });
});
