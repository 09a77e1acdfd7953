import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@svc/api';
import { claimProblem, decideClaim, directoryFor, shouldDelete, volumeFor, volumeNode, type ClaimFacts } from './local-path-volumes';

const wffc: StorageClass = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'local-path' },
  provisioner: 'svc.io/local-path',
  reclaimPolicy: 'Delete',
  volumeBindingMode: 'WaitForFirstConsumer',
};
const immediate = { ...wffc, metadata: { name: 'now' }, volumeBindingMode: 'Immediate' } as StorageClass;

function claim(annotations: Record<string, string> = {}, spec: Partial<NonNullable<PersistentVolumeClaim['spec']>> = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: 'data',
      namespace: 'shop',
      uid: 'c-1',
      resourceVersion: '7',
      annotations: { 'volume.kubernetes.io/storage-provisioner': 'svc.io/local-path', ...annotations },
    },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'local-path', ...spec },
    status: { phase: 'Pending' },
  };
}

const facts = (extra: Partial<ClaimFacts> = {}): ClaimFacts => ({ nodeName: 'n1', storageClass: wffc, volumeExists: false, nodeNames: ['n1', 'n2'], ...extra });

describe('the local path provisioner decisions', () => {
  it('provisions a WaitForFirstConsumer claim once the scheduler selected this node, never another node’s', () => {
    expect(decideClaim(claim(), facts())).toEqual({ provision: false, reason: 'no node selected yet' });
    expect(decideClaim(claim({ 'volume.kubernetes.io/selected-node': 'n1' }), facts())).toEqual({ provision: true });
    expect(decideClaim(claim({ 'volume.kubernetes.io/selected-node': 'n2' }), facts())).toMatchObject({ provision: false });
  });

  it('provisions an Immediate claim on the only node of the cluster, and leaves it when there are several', () => {
    expect(decideClaim(claim(), facts({ storageClass: immediate, nodeNames: ['n1'] }))).toEqual({ provision: true });
    expect(decideClaim(claim(), facts({ storageClass: immediate, nodeNames: ['n1', 'n2'] }))).toMatchObject({ provision: false });
    expect(decideClaim(claim(), facts({ storageClass: immediate, nodeNames: ['n2'] }))).toMatchObject({ provision: false });
    expect(decideClaim(claim(), facts({ storageClass: immediate, nodeNames: undefined }))).toEqual({
      provision: false,
      reason: 'an Immediate claim, and the nodes of the cluster are not known',
    });
  });

  it('reads the beta annotation too, and leaves claims of other provisioners, bound, named or already provisioned claims alone', () => {
    const selected = { 'volume.kubernetes.io/selected-node': 'n1' };
    const beta = claim(selected);
    delete beta.metadata!.annotations!['volume.kubernetes.io/storage-provisioner'];
    beta.metadata!.annotations!['volume.beta.kubernetes.io/storage-provisioner'] = 'svc.io/local-path';
    expect(decideClaim(beta, facts())).toEqual({ provision: true });
    expect(decideClaim(claim({ ...selected, 'volume.kubernetes.io/storage-provisioner': 'example.com/nfs' }), facts())).toMatchObject({ provision: false });
    expect(decideClaim(claim(selected), facts({ storageClass: { ...wffc, provisioner: 'example.com/nfs' } }))).toMatchObject({
      provision: false,
    });
    expect(decideClaim(claim(selected, { volumeName: 'pv-1' }), facts())).toMatchObject({ provision: false });
    expect(decideClaim({ ...claim(selected), status: { phase: 'Bound' } }, facts())).toMatchObject({ provision: false });
    expect(decideClaim(claim(selected), facts({ volumeExists: true }))).toEqual({ provision: false, reason: 'its volume exists already' });
    expect(decideClaim(claim(selected), facts({ storageClass: undefined }))).toMatchObject({ provision: false });
  });

  it('refuses what a directory on one node cannot be: shared access modes, Block, unknown parameters, a relative nodePath', () => {
    expect(claimProblem(claim(), wffc)).toBeUndefined();
    expect(claimProblem(claim({}, { accessModes: ['ReadWriteMany'] }), wffc)).toContain('not ReadWriteMany');
    expect(claimProblem(claim({}, { volumeMode: 'Block' }), wffc)).toContain('Filesystem volumes only');
    expect(claimProblem(claim(), { ...wffc, parameters: { fsType: 'xfs' } })).toContain('invalid StorageClass parameter "fsType"');
    expect(claimProblem(claim(), { ...wffc, parameters: { nodePath: 'relative' } })).toContain('must be an absolute path');
    expect(claimProblem(claim(), { ...wffc, parameters: { nodePath: '/srv/volumes' } })).toBeUndefined();
  });

  it('makes a local volume pre-bound to the claim, tied to this node, with the class’s policy and options and the claim’s size', () => {
    const withOptions = { ...wffc, reclaimPolicy: 'Retain', mountOptions: ['noatime'], parameters: { nodePath: '/srv/volumes' } } as StorageClass;
    const path = directoryFor(claim(), withOptions, '/var/lib/agent/local-path-volumes');
    expect(path).toBe('/srv/volumes/pvc-c-1_shop_data');
    expect(directoryFor(claim(), wffc, '/var/lib/agent/local-path-volumes')).toBe('/var/lib/agent/local-path-volumes/pvc-c-1_shop_data');
    const volume = volumeFor(claim(), withOptions, 'n1', path);
    expect(volume).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pvc-c-1', annotations: { 'pv.kubernetes.io/provisioned-by': 'svc.io/local-path' } },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: 'local-path',
        mountOptions: ['noatime'],
        volumeMode: 'Filesystem',
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data', uid: 'c-1', resourceVersion: '7' },
        local: { path },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }] } },
      },
    });
    expect(volumeNode(volume)).toBe('n1');
  });

  it('deletes only its own Released Delete volumes of this node', () => {
    const volume = (phase: string, policy = 'Delete', node = 'n1', by = 'svc.io/local-path'): PersistentVolume => {
      const made = volumeFor(claim(), { ...wffc, reclaimPolicy: policy }, node, '/x/pvc-c-1_shop_data');
      made.metadata!.annotations = { 'pv.kubernetes.io/provisioned-by': by };
      return { ...made, status: { phase } };
    };
    expect(shouldDelete(volume('Released'), 'n1')).toBe(true);
    expect(shouldDelete(volume('Bound'), 'n1')).toBe(false);
    expect(shouldDelete(volume('Released', 'Retain'), 'n1')).toBe(false);
    expect(shouldDelete(volume('Released', 'Delete', 'n2'), 'n1')).toBe(false);
    expect(shouldDelete(volume('Released', 'Delete', 'n1', 'example.com/nfs'), 'n1')).toBe(false);
  });
});
