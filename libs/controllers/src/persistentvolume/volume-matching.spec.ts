import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from '@svc/api';
import {
  claimClass,
  defaultStorageClass,
  findBestMatchForClaim,
  findMatchingVolume,
  isVolumeBoundToClaim,
  volumeNodeAffinityMatches,
  volumeUnfitFor,
} from './volume-matching';

function volume(
  name: string,
  size: string,
  options: {
    modes?: string[];
    className?: string;
    phase?: string;
    labels?: Record<string, string>;
    claim?: { name: string; uid?: string };
    node?: string;
  } = {},
): PersistentVolume {
  return {
    metadata: { name, labels: options.labels },
    spec: {
      capacity: { storage: size },
      accessModes: options.modes ?? ['ReadWriteOnce'],
      storageClassName: options.className,
      ...(options.claim ? { claimRef: { namespace: 'ns', name: options.claim.name, uid: options.claim.uid } } : {}),
      ...(options.node
        ? {
            nodeAffinity: {
              required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [options.node] }] }] },
            },
          }
        : {}),
    },
    status: { phase: options.phase ?? 'Available' },
  };
}

function claim(
  name: string,
  size: string,
  options: { modes?: string[]; className?: string; selector?: Record<string, string>; uid?: string } = {},
): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: 'ns', uid: options.uid ?? `uid-${name}` },
    spec: {
      accessModes: options.modes ?? ['ReadWriteOnce'],
      resources: { requests: { storage: size } },
      ...(options.className !== undefined ? { storageClassName: options.className } : {}),
      ...(options.selector ? { selector: { matchLabels: options.selector } } : {}),
    },
  };
}

const node = (name: string): Node => ({ metadata: { name, labels: { 'kubernetes.io/hostname': name } } });
const names = (v: PersistentVolume | undefined) => v?.metadata?.name;

describe('volume matching', () => {
  it('takes the smallest Available volume that holds the request', () => {
    const volumes = [volume('big', '10Gi'), volume('small', '1Gi'), volume('fits', '2Gi'), volume('tiny', '500Mi')];
    expect(names(findBestMatchForClaim(claim('c', '1500Mi'), volumes, false))).toBe('fits');
    expect(names(findBestMatchForClaim(claim('c', '1Gi'), volumes, false))).toBe('small');
    expect(findBestMatchForClaim(claim('c', '20Gi'), volumes, false)).toBeUndefined();
  });

  it('matches class, selector and phase', () => {
    const volumes = [
      volume('fast', '1Gi', { className: 'fast' }),
      volume('labelled', '5Gi', { labels: { tier: 'gold' } }),
      volume('released', '1Gi', { phase: 'Released' }),
    ];
    expect(names(findBestMatchForClaim(claim('c', '1Gi', { className: 'fast' }), volumes, false))).toBe('fast');
    expect(names(findBestMatchForClaim(claim('c', '1Gi'), volumes, false))).toBe('labelled');
    expect(names(findBestMatchForClaim(claim('c', '1Gi', { selector: { tier: 'gold' } }), volumes, false))).toBe('labelled');
    expect(findBestMatchForClaim(claim('c', '1Gi', { selector: { tier: 'silver' } }), volumes, false)).toBeUndefined();
  });

  it('searches volumes offering the fewest access modes first, then the smallest', () => {
    const volumes = [volume('rwo-rox', '1Gi', { modes: ['ReadWriteOnce', 'ReadOnlyMany'] }), volume('rwo', '5Gi')];
    expect(names(findBestMatchForClaim(claim('c', '1Gi'), volumes, false))).toBe('rwo');
    expect(names(findBestMatchForClaim(claim('c', '1Gi', { modes: ['ReadOnlyMany'] }), volumes, false))).toBe('rwo-rox');
    expect(findBestMatchForClaim(claim('c', '1Gi', { modes: ['ReadWriteMany'] }), volumes, false)).toBeUndefined();
  });

  it('prefers a volume reserved for the claim, even for WaitForFirstConsumer, and skips ones of other claims', () => {
    const volumes = [volume('free', '1Gi'), volume('mine', '5Gi', { claim: { name: 'c' } }), volume('theirs', '1Gi', { claim: { name: 'd' } })];
    expect(names(findBestMatchForClaim(claim('c', '1Gi'), volumes, false))).toBe('mine');
    expect(names(findBestMatchForClaim(claim('c', '1Gi'), volumes, true))).toBe('mine');
    expect(findBestMatchForClaim(claim('e', '1Gi'), volumes, true)).toBeUndefined();
    expect(isVolumeBoundToClaim(volume('v', '1Gi', { claim: { name: 'c', uid: 'other' } }), claim('c', '1Gi'))).toBe(false);
  });

  it("on the scheduler's path checks the node affinity and access modes", () => {
    const volumes = [volume('a', '1Gi', { node: 'n1' }), volume('b', '2Gi', { node: 'n2' })];
    expect(names(findMatchingVolume(claim('c', '1Gi'), volumes, node('n2'), new Set(), true))).toBe('b');
    expect(findMatchingVolume(claim('c', '1Gi'), volumes, node('n2'), new Set(['b']), true)).toBeUndefined();
    expect(findMatchingVolume(claim('c', '1Gi', { modes: ['ReadWriteMany'] }), volumes, node('n1'), new Set(), true)).toBeUndefined();
    expect(volumeNodeAffinityMatches(volume('x', '1Gi'), node('n9'))).toBe(true);
    // A reserved volume the node cannot reach means nothing fits there.
    expect(
      findMatchingVolume(claim('c', '1Gi'), [volume('r', '1Gi', { node: 'n1', claim: { name: 'c' } }), volume('b', '2Gi')], node('n2'), new Set(), true),
    ).toBeUndefined();
  });

  it('says why a named volume does not fit, as Kubernetes does', () => {
    expect(volumeUnfitFor(volume('v', '1Gi'), claim('c', '2Gi'))).toBe('requested PV is too small');
    expect(volumeUnfitFor(volume('v', '1Gi', { className: 'x' }), claim('c', '1Gi'))).toBe('storageClassName does not match');
    expect(volumeUnfitFor(volume('v', '1Gi'), claim('c', '1Gi', { modes: ['ReadWriteMany'] }))).toBe('incompatible accessMode');
    expect(volumeUnfitFor(volume('v', '1Gi'), claim('c', '1Gi'))).toBeUndefined();
  });

  it('reads the class from the beta annotation first, and picks the newest default class', () => {
    const c = claim('c', '1Gi', { className: 'field' });
    c.metadata = { ...c.metadata, annotations: { 'volume.beta.kubernetes.io/storage-class': 'annotated' } };
    expect(claimClass(c)).toBe('annotated');
    const cls = (name: string, at: string, def: boolean): StorageClass => ({
      metadata: { name, creationTimestamp: at, annotations: def ? { 'storageclass.kubernetes.io/is-default-class': 'true' } : {} },
      provisioner: 'p',
    });
    expect(
      defaultStorageClass([cls('old', '2024-01-01T00:00:00Z', true), cls('new', '2025-01-01T00:00:00Z', true), cls('newest', '2026-01-01T00:00:00Z', false)])
        ?.metadata?.name,
    ).toBe('new');
    expect(defaultStorageClass([cls('a', '2024-01-01T00:00:00Z', false)])).toBeUndefined();
  });
});
