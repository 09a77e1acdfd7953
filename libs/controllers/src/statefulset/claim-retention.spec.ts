import type { Pod, StatefulSet } from '@svc/api';
import { claimIsStale, ordinalInRange, retentionOwnerReferences } from './claim-retention';

const set = (whenDeleted?: string, whenScaled?: string): StatefulSet =>
  ({
    metadata: { name: 'web', namespace: 'ns', uid: 'set-uid' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {},
      ...(whenDeleted ? { persistentVolumeClaimRetentionPolicy: { whenDeleted, whenScaled } } : {}),
    },
  }) as unknown as StatefulSet;
const pod = { metadata: { name: 'web-3', uid: 'pod-uid' } } as Pod;
const setRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid' };
const podRef = { apiVersion: 'v1', kind: 'Pod', name: 'web-3', uid: 'pod-uid' };
const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'other' };

describe('StatefulSet claim retention', () => {
  it('keeps claims unowned under Retain, and takes the set and pod references away', () => {
    expect(retentionOwnerReferences(set(), pod, { metadata: {} }, false)).toBeUndefined();
    expect(retentionOwnerReferences(set('Retain', 'Retain'), pod, { metadata: { ownerReferences: [setRef, podRef, other] } }, true)).toEqual([other]);
  });

  it('lets the set own its claims under whenDeleted: Delete', () => {
    expect(retentionOwnerReferences(set('Delete', 'Retain'), pod, { metadata: {} }, false)).toEqual([setRef]);
    expect(retentionOwnerReferences(set('Delete', 'Retain'), pod, { metadata: { ownerReferences: [setRef] } }, true)).toBeUndefined();
  });

  it('hands a scaled-away pod’s claims to the pod under whenScaled: Delete, so they go with it', () => {
    expect(retentionOwnerReferences(set('Retain', 'Delete'), pod, { metadata: {} }, true)).toEqual([podRef]);
    expect(retentionOwnerReferences(set('Retain', 'Delete'), pod, { metadata: { ownerReferences: [podRef] } }, false)).toEqual([]);
    // Both Delete: the set lets go of a scaled-away pod's claims, or the collector would keep them for the set.
    expect(retentionOwnerReferences(set('Delete', 'Delete'), pod, { metadata: { ownerReferences: [setRef] } }, true)).toEqual([podRef]);
    expect(retentionOwnerReferences(set('Delete', 'Delete'), pod, { metadata: {} }, false)).toEqual([setRef]);
  });

  it('finds a claim still owned by an earlier pod of the ordinal stale, and ordinals in range', () => {
    const earlier = { metadata: { ownerReferences: [{ ...podRef, uid: 'old-uid' }] } };
    expect(claimIsStale(set('Retain', 'Delete'), pod, earlier)).toBe(true);
    expect(claimIsStale(set('Retain', 'Retain'), pod, earlier)).toBe(false);
    expect(claimIsStale(set('Retain', 'Delete'), pod, { metadata: { ownerReferences: [podRef] } })).toBe(false);
    expect([0, 1, 2].map((o) => ordinalInRange(set(), o))).toEqual([true, true, false]);
  });
});
