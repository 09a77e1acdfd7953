import type { Pod } from '@svc/api';
import { ContainerConfigError } from './container-config-error';
import { formatMap, podFieldValue, resourceFieldValue, type PodFacts } from './downward-api';

const facts: PodFacts = {
  nodeName: 'node-a',
  hostIPs: ['192.168.1.10', 'fd00::10'],
  podIPs: ['10.1.0.5', 'fd01::5'],
  allocatableMilliCpu: 3500,
  allocatableMemory: 6 * 1024 ** 3,
};

const pod: Pod = {
  metadata: { name: 'web', namespace: 'shop', uid: 'u-1', labels: { app: 'web', tier: 'front' }, annotations: { note: 'say "hi"\nbye' } },
  spec: {
    nodeName: 'node-a',
    serviceAccountName: 'builder',
    containers: [{ name: 'app', image: 'i', resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { memory: '128Mi' } } }],
    initContainers: [{ name: 'init', image: 'i' }],
  },
};

describe('the downward API', () => {
  it.each([
    ['metadata.name', 'web'],
    ['metadata.namespace', 'shop'],
    ['metadata.uid', 'u-1'],
    ['metadata.labels', 'app="web"\ntier="front"'],
    ['metadata.annotations', 'note="say \\"hi\\"\\nbye"'],
    ["metadata.labels['tier']", 'front'],
    ["metadata.annotations['missing']", ''],
    ['spec.nodeName', 'node-a'],
    ['spec.serviceAccountName', 'builder'],
    ['status.hostIP', '192.168.1.10'],
    ['status.hostIPs', '192.168.1.10,fd00::10'],
    ['status.podIP', '10.1.0.5'],
    ['status.podIPs', '10.1.0.5,fd01::5'],
  ])('gives %s as %j', (fieldPath, value) => {
    expect(podFieldValue(pod, fieldPath, facts)).toBe(value);
  });

  it('refuses a field path it does not know, as a container config error', () => {
    expect(() => podFieldValue(pod, 'spec.hostname', facts)).toThrow(ContainerConfigError);
    expect(() => podFieldValue(pod, 'spec.hostname', facts)).toThrow('unsupported field path "spec.hostname"');
  });

  it.each<[string, string, string | undefined, string]>([
    ['requests.cpu', 'app', undefined, '1'],
    ['requests.cpu', 'app', '1m', '250'],
    ['limits.cpu', 'app', '1m', '3500'],
    ['requests.memory', 'app', '1Mi', '64'],
    ['limits.memory', 'app', '1Mi', '128'],
    ['limits.memory', 'init', '1Gi', '6'],
    ['requests.ephemeral-storage', 'app', undefined, '0'],
  ])('gives %s of %s (divisor %s) rounded up, the node allocatable standing in for a missing limit: %s', (resource, container, divisor, value) => {
    expect(resourceFieldValue(pod, container, resource, divisor, facts)).toBe(value);
  });

  it('refuses a resourceFieldRef naming no container of the pod', () => {
    expect(() => resourceFieldValue(pod, 'nope', 'limits.cpu', undefined, facts)).toThrow('resourceFieldRef names no container "nope"');
  });

  it('renders maps sorted, one key="value" a line', () => {
    expect(formatMap({ b: '2', a: 'x\\y' })).toBe('a="x\\\\y"\nb="2"');
    expect(formatMap(undefined)).toBe('');
  });
});
