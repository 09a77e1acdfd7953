import type { Pod, StatefulSet } from '@svc/api';
import { identityMatches, isMemberOf, newStatefulPod, parentAndOrdinal, podClaims, storageMatches, updateIdentity } from './stateful-pod-identity';

const set: StatefulSet = {
  metadata: { name: 'web', namespace: 'ns', uid: 'u-1' },
  spec: {
    serviceName: 'svc',
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' }, annotations: { note: 'x' } },
      spec: {
        containers: [{ name: 'c', image: 'busybox' }],
        volumes: [
          { name: 'data', emptyDir: {} },
          { name: 'config', emptyDir: {} },
        ],
      },
    },
    volumeClaimTemplates: [{ metadata: { name: 'data', labels: { tier: 'disk' } }, spec: { accessModes: ['ReadWriteOnce'] }, status: { phase: 'Pending' } }],
  },
};

const named = (name: string): Pod => ({ metadata: { name, namespace: 'ns' }, spec: { containers: [] } });

describe('a StatefulSet pod’s identity', () => {
  it('reads the parent and ordinal from the name', () => {
    expect(parentAndOrdinal(named('web-12'))).toEqual({ parent: 'web', ordinal: 12 });
    expect(parentAndOrdinal(named('my-web-0'))).toEqual({ parent: 'my-web', ordinal: 0 });
    expect(parentAndOrdinal(named('web'))).toEqual({ parent: '', ordinal: -1 });
    expect(parentAndOrdinal(named('web-99999999999'))).toEqual({ parent: '', ordinal: -1 });
    expect(isMemberOf(set, named('web-3'))).toBe(true);
    expect(isMemberOf(set, named('webby-3'))).toBe(false);
  });

  it('makes the pod of an ordinal: name, labels, hostname, subdomain, owner, claim volumes in place of the template’s', () => {
    const pod = newStatefulPod(set, 4, 'web-abc');
    expect(pod.metadata).toEqual({
      name: 'web-4',
      namespace: 'ns',
      labels: { app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-4', 'apps.kubernetes.io/pod-index': '4', 'controller-revision-hash': 'web-abc' },
      annotations: { note: 'x' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u-1', controller: true, blockOwnerDeletion: true }],
    });
    expect(pod.spec).toMatchObject({ hostname: 'web-4', subdomain: 'svc' });
    expect(pod.spec?.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'data-web-4' } },
      { name: 'config', emptyDir: {} },
    ]);
    expect(identityMatches(set, pod)).toBe(true);
    expect(storageMatches(set, pod)).toBe(true);
    // The template is not changed.
    expect(set.spec.template.spec?.volumes?.[0]).toEqual({ name: 'data', emptyDir: {} });
  });

  it('names the claims <template>-<pod>, with the selector’s labels and no status', () => {
    const claim = podClaims(set, 2).get('data');
    expect(claim?.metadata).toEqual({ name: 'data-web-2', namespace: 'ns', labels: { tier: 'disk', app: 'web' } });
    expect(claim?.status).toBeUndefined();
  });

  it('finds a pod whose identity label went astray, and restores it', () => {
    const pod = newStatefulPod(set, 1, 'r');
    pod.metadata!.labels!['statefulset.kubernetes.io/pod-name'] = 'other';
    expect(identityMatches(set, pod)).toBe(false);
    updateIdentity(set, pod);
    expect(identityMatches(set, pod)).toBe(true);
    expect(storageMatches(set, { ...pod, spec: { ...pod.spec, volumes: [] } })).toBe(false);
  });
});
