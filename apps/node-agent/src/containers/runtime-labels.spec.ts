import type { Container, Pod } from '@svc/api';
import { containerHash, containerLogPath, LABEL_MANAGED_BY, LABEL_POD_UID, podLabels, podLogDirectoryName } from './runtime-labels';

describe('runtime labels', () => {
  it("labels what the agent creates with the pod's identity (Kubernetes' keys) and the agent's own mark", () => {
    const pod: Pod = { metadata: { name: 'web', namespace: 'shop', uid: 'u-1' }, spec: { containers: [] } };
    expect(podLabels(pod)).toEqual({
      'io.kubernetes.pod.uid': 'u-1',
      'io.kubernetes.pod.name': 'web',
      'io.kubernetes.pod.namespace': 'shop',
      'svc.io/managed-by': 'svc-node-agent',
    });
    expect([LABEL_POD_UID, LABEL_MANAGED_BY]).toEqual(['io.kubernetes.pod.uid', 'svc.io/managed-by']);
  });

  it('hashes what a running container must match: a change of image or command changes it, of a probe does not', () => {
    const base: Container = { name: 'app', image: 'busybox:1.36', command: ['sleep', '1'] };
    const hash = containerHash(base);
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(containerHash({ ...base })).toBe(hash);
    expect(containerHash({ ...base, image: 'busybox:1.37' })).not.toBe(hash);
    expect(containerHash({ ...base, command: ['sleep', '2'] })).not.toBe(hash);
    expect(containerHash({ ...base, livenessProbe: { exec: { command: ['true'] } } })).toBe(hash);
  });

  it("names a pod's log directory and a container's log file as Kubernetes does", () => {
    expect(podLogDirectoryName({ namespace: 'shop', name: 'web', uid: 'u-1' })).toBe('shop_web_u-1');
    expect(containerLogPath('app', 3)).toBe('app/3.log');
  });
});
