import type { Pod } from '@svc/api';
import type { PodRuntime } from './pod-runtime';
import { PodWorker } from './pod-worker';

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

/** Which updates start a sync: the decision alone, with the sync itself replaced by a count. */
describe('PodWorker: which changes sync a pod', () => {
  let worker: PodWorker;
  let syncs: number;

  beforeEach(() => {
    // The runtime is never reached: requestSync, the door to it, is counted instead.
    worker = new PodWorker(pod(), {} as PodRuntime, () => undefined);
    syncs = 0;
    jest.spyOn(worker, 'requestSync').mockImplementation(() => void syncs++);
  });

  it('does not sync for a change of status, resourceVersion or managed fields alone (its own status write coming back)', () => {
    worker.update(
      pod((p) => {
        p.metadata!.resourceVersion = '11';
        p.metadata!.managedFields = [{ manager: 'svc-node-agent', operation: 'Update', subresource: 'status' }];
        p.status = { phase: 'Running', podIP: '10.0.0.5', conditions: [{ type: 'Ready', status: 'True' }] };
      }),
    );
    expect(syncs).toBe(0);
    expect(worker.current.metadata?.resourceVersion).toBe('11');
    expect(worker.current.status?.podIP).toBe('10.0.0.5');
  });

  it.each<[string, (p: Pod) => void]>([
    ['the spec', (p) => (p.spec.containers[0].image = 'busybox:2')],
    ['a label', (p) => (p.metadata!.labels = { app: 'web', tier: 'front' })],
    ['an annotation', (p) => (p.metadata!.annotations = { note: 'x' })],
    ['the deletion timestamp', (p) => (p.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z')],
    ['the deletion grace period', (p) => (p.metadata!.deletionGracePeriodSeconds = 0)],
    ['a finished phase set from outside', (p) => (p.status = { phase: 'Failed' })],
  ])('syncs for a change of %s', (_what, change) => {
    worker.update(pod(change));
    expect(syncs).toBe(1);
  });

  it('syncs for a runtime state it has not seen, not for the one its last sync saw, and not while a sync runs', () => {
    const internals = worker as unknown as { running: boolean; seen?: string };
    internals.seen = 'c1:CONTAINER_RUNNING,s1:SANDBOX_READY';
    worker.runtimeChanged('c1:CONTAINER_RUNNING,s1:SANDBOX_READY');
    expect(syncs).toBe(0);
    worker.runtimeChanged('c1:CONTAINER_EXITED,s1:SANDBOX_READY');
    expect(syncs).toBe(1);
    internals.running = true;
    worker.runtimeChanged('s1:SANDBOX_NOTREADY');
    expect(syncs).toBe(1);
  });
});
