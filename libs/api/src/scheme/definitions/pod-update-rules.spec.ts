import type { Pod } from '../../kinds/core/pod';
import { validatePodUpdate } from './pod-update-rules';

const pod = (spec: Partial<NonNullable<Pod['spec']>>): Pod => ({
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'c', image: 'nginx:1', imagePullPolicy: 'IfNotPresent' }], restartPolicy: 'Always', ...spec },
});
const fields = (next: Pod, old: Pod) => validatePodUpdate(next, old).map((e) => `${e.field} ${e.type}`);

describe("a running pod's spec", () => {
  it('takes new images, a shorter deadline, more tolerations, fewer gates', () => {
    const old = pod({ activeDeadlineSeconds: 60, tolerations: [{ key: 'a', operator: 'Exists' }], schedulingGates: [{ name: 'g' }] });
    const next = pod({
      containers: [{ name: 'c', image: 'nginx:2', imagePullPolicy: 'IfNotPresent' }],
      activeDeadlineSeconds: 30,
      tolerations: [{ key: 'a', operator: 'Exists', tolerationSeconds: 5 }, { key: 'b' }],
    });
    expect(fields(next, old)).toEqual([]);
    expect(fields(pod({ terminationGracePeriodSeconds: 1 }), pod({ terminationGracePeriodSeconds: -1 }))).toEqual([]);
  });

  it('refuses anything else: its node, its command, its restart policy, ephemeral containers, a longer deadline, a removed toleration, a new gate', () => {
    const old = pod({});
    expect(fields(pod({ nodeName: 'n2' }), old)).toEqual(['spec FieldValueForbidden']);
    expect(fields(pod({ containers: [{ name: 'c', image: 'nginx:1', imagePullPolicy: 'IfNotPresent', command: ['sh'] }] }), old)).toEqual([
      'spec FieldValueForbidden',
    ]);
    expect(fields(pod({ restartPolicy: 'Never' }), old)).toEqual(['spec FieldValueForbidden']);
    expect(fields(pod({ ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] }), old)).toEqual(['spec FieldValueForbidden']);
    expect(validatePodUpdate(pod({ nodeName: 'n2' }), old)[0].detail).toMatch(/^pod updates may not change fields other than `spec.containers\[\*\].image`/);
    expect(fields(pod({ activeDeadlineSeconds: 90 }), pod({ activeDeadlineSeconds: 60 }))).toEqual(['spec.activeDeadlineSeconds FieldValueInvalid']);
    expect(fields(pod({}), pod({ activeDeadlineSeconds: 60 }))).toEqual(['spec.activeDeadlineSeconds FieldValueInvalid']);
    expect(fields(pod({}), pod({ tolerations: [{ key: 'a' }] }))).toEqual(['spec.tolerations FieldValueForbidden']);
    expect(fields(pod({ schedulingGates: [{ name: 'new' }] }), pod({}))).toEqual(['spec.schedulingGates[0] FieldValueForbidden']);
  });
});
