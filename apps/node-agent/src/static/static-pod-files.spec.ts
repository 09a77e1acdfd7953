import { staticPodFromManifest } from './static-pod-files';

const manifest = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: web
      image: busybox:1.36
`;

describe('staticPodFromManifest', () => {
  it('names the pod after the node, binds it, defaults it and gives it a uid stable for the same file and node', () => {
    const pod = staticPodFromManifest(manifest, '/etc/pods/web.yaml', 'node-a');
    expect(pod.metadata).toMatchObject({ name: 'web-node-a', namespace: 'default' });
    expect(pod.spec?.nodeName).toBe('node-a');
    expect(pod.spec?.tolerations).toContainEqual({ operator: 'Exists', effect: 'NoExecute' });
    expect(pod.spec?.containers[0].terminationMessagePath).toBe('/dev/termination-log');
    expect(pod.metadata?.annotations).toMatchObject({ 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': pod.metadata?.uid });
    expect(staticPodFromManifest(manifest, '/etc/pods/web.yaml', 'node-a').metadata?.uid).toBe(pod.metadata?.uid);
    expect(staticPodFromManifest(manifest, '/etc/pods/other.yaml', 'node-a').metadata?.uid).not.toBe(pod.metadata?.uid);
    expect(staticPodFromManifest(manifest.replace('busybox:1.36', 'busybox:1.37'), '/etc/pods/web.yaml', 'node-a').metadata?.uid).not.toBe(pod.metadata?.uid);
  });

  it('refuses what is not a valid v1 Pod, naming the problem', () => {
    expect(() => staticPodFromManifest('kind: Deployment\napiVersion: apps/v1\n', 'f', 'n')).toThrow(/v1 Pod/);
    expect(() => staticPodFromManifest(manifest.replace('image:', 'imag:'), 'f', 'n')).toThrow(/unknown field "spec.containers\[0\].imag"/);
    expect(() => staticPodFromManifest(manifest.replace('name: web\n', 'name: WEB\n'), 'f', 'n')).toThrow(/metadata.name: Invalid value: "WEB-n"/);
    expect(() => staticPodFromManifest('{', 'f', 'n')).toThrow(/cannot be parsed/);
  });
});
