import type { Pod } from '@svc/api';
import { nodeNameAffinity, targetNodeName } from './daemon-pod-placement';

const term = (node: string) => ({ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] });

describe('placing a daemon pod through the scheduler', () => {
  it('requires the node by name, replacing the required terms and keeping the other affinities', () => {
    expect(nodeNameAffinity(undefined, 'n1')).toEqual({
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term('n1')] } },
    });
    const preferred = [{ weight: 1, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } }];
    const podAntiAffinity = { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: {} }] };
    const affinity = {
      podAntiAffinity,
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: preferred,
      },
    };
    expect(nodeNameAffinity(affinity, 'n2')).toEqual({
      podAntiAffinity,
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term('n2')] },
        preferredDuringSchedulingIgnoredDuringExecution: preferred,
      },
    });
  });

  it('reads the target node from spec.nodeName once bound, else from the metadata.name term', () => {
    const pod = (spec: Partial<Pod['spec']>): Pod => ({ metadata: {}, spec: { containers: [], ...spec } });
    expect(targetNodeName(pod({ nodeName: 'bound' }))).toBe('bound');
    expect(targetNodeName(pod({ affinity: nodeNameAffinity(undefined, 'n3') }))).toBe('n3');
    expect(targetNodeName(pod({}))).toBeUndefined();
    const twoNames = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a', 'b'] }] }],
        },
      },
    };
    expect(targetNodeName(pod({ affinity: twoNames }))).toBeUndefined();
  });
});
