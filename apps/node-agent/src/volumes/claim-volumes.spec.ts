import type { PersistentVolume, PersistentVolumeClaim, Pod } from '@svc/api';
import { claimNameOf, resolveClaimVolume, type ClaimReader } from './claim-volumes';

const pod: Pod = {
  metadata: { name: 'web', namespace: 'shop', uid: 'p-1' },
  spec: {
    containers: [],
    volumes: [
      { name: 'data', persistentVolumeClaim: { claimName: 'data', readOnly: true } },
      { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
    ],
  },
};
const [dataVolume, scratchVolume] = pod.spec.volumes!;

function claim(name: string, extra: Partial<PersistentVolumeClaim> = {}): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: 'shop', uid: `c-${name}` },
    spec: { volumeName: `pv-${name}` },
    status: { phase: 'Bound' },
    ...extra,
  };
}

function volume(name: string, claimUid: string, source: Partial<NonNullable<PersistentVolume['spec']>> = { local: { path: `/v/${name}` } }): PersistentVolume {
  return { metadata: { name }, spec: { claimRef: { name, namespace: 'shop', uid: claimUid }, ...source } };
}

function reader(claims: PersistentVolumeClaim[], volumes: PersistentVolume[]): ClaimReader {
  return {
    claim: async (_ns, name) => claims.find((c) => c.metadata?.name === name),
    volume: async (name) => volumes.find((v) => v.metadata?.name === name),
  };
}

describe('a pod volume’s claim on the node', () => {
  it('names the claim: its own, or <pod>-<volume> for a generic ephemeral volume', () => {
    expect(claimNameOf(pod, dataVolume)).toBe('data');
    expect(claimNameOf(pod, scratchVolume)).toBe('web-scratch');
    expect(claimNameOf(pod, { name: 'e', emptyDir: {} })).toBeUndefined();
  });

  it('leads to the bound volume’s local or hostPath source, read only when the pod says so', async () => {
    const found = await resolveClaimVolume(pod, dataVolume, reader([claim('data')], [volume('pv-data', 'c-data')]));
    expect(found).toEqual({ volumeName: 'pv-data', source: { kind: 'local', path: '/v/pv-data' }, readOnly: true });
    const hostPath = volume('pv-data', 'c-data', { hostPath: { path: '/srv/x', type: 'DirectoryOrCreate' } });
    expect((await resolveClaimVolume(pod, dataVolume, reader([claim('data')], [hostPath]))).source).toEqual({
      kind: 'hostPath',
      path: '/srv/x',
      type: 'DirectoryOrCreate',
    });
  });

  it('says why in the kubelet’s words when the claim is missing, unbound, being deleted, or its volume does not point back', async () => {
    const fails = (claims: PersistentVolumeClaim[], volumes: PersistentVolume[]) => resolveClaimVolume(pod, dataVolume, reader(claims, volumes));
    await expect(fails([], [])).rejects.toThrow('error processing PVC shop/data: failed to fetch PVC from API server: persistentvolumeclaims "data" not found');
    await expect(fails([claim('data', { spec: {}, status: { phase: 'Pending' } })], [])).rejects.toThrow('error processing PVC shop/data: PVC is not bound');
    await expect(fails([claim('data', { metadata: { name: 'data', deletionTimestamp: '2026-01-01T00:00:00Z' } })], [])).rejects.toThrow('PVC is being deleted');
    await expect(fails([claim('data')], [])).rejects.toThrow('failed to fetch PV pv-data from API server: persistentvolumes "pv-data" not found');
    await expect(fails([claim('data')], [volume('pv-data', 'c-other')])).rejects.toThrow(
      'found PV object pv-data but its pv.Spec.ClaimRef.UID c-other does not point to claim.UID c-data',
    );
    await expect(fails([claim('data')], [volume('pv-data', 'c-data', { nfs: { server: 's', path: '/' } })])).rejects.toThrow(
      'has a nfs source, which this node agent cannot mount',
    );
  });

  it('mounts an ephemeral volume’s claim only when the pod owns it', async () => {
    const owned = claim('web-scratch', {
      metadata: { name: 'web-scratch', uid: 'c-web-scratch', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'p-1', controller: true }] },
    });
    const foreign = claim('web-scratch', { metadata: { name: 'web-scratch', uid: 'c-web-scratch' } });
    const volumes = [volume('pv-web-scratch', 'c-web-scratch')];
    expect((await resolveClaimVolume(pod, scratchVolume, reader([owned], volumes))).readOnly).toBe(false);
    await expect(resolveClaimVolume(pod, scratchVolume, reader([foreign], volumes))).rejects.toThrow(
      'PVC shop/web-scratch was not created for pod shop/web (pod is not owner)',
    );
  });
});
