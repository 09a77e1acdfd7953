import { JsonObject, createStrategicMergePatch, strategicMergePatch } from './index';
import { workloadSchema } from './testing/workload-schema';

const pod = (spec: JsonObject, metadata: JsonObject = { name: 'p' }): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata, spec });

describe('createStrategicMergePatch', () => {
  const roundTrips: Array<[string, JsonObject, JsonObject]> = [
    ['identical objects', pod({ replicas: 1 }), pod({ replicas: 1 })],
    [
      'a changed container image',
      pod({ containers: [{ name: 'a', image: '1' }, { name: 'b' }] }),
      pod({ containers: [{ name: 'a', image: '2' }, { name: 'b' }] }),
    ],
    ['an added container', pod({ containers: [{ name: 'a' }] }), pod({ containers: [{ name: 'a' }, { name: 'b', image: 'x' }] })],
    ['a removed container', pod({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }), pod({ containers: [{ name: 'a' }, { name: 'c' }] })],
    [
      'reordered containers',
      pod({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }),
      pod({ containers: [{ name: 'c' }, { name: 'a' }, { name: 'b' }] }),
    ],
    [
      'add, remove, change and reorder at once',
      pod({ containers: [{ name: 'a', image: '1' }, { name: 'b' }, { name: 'c' }] }),
      pod({ containers: [{ name: 'd' }, { name: 'c', image: '3' }, { name: 'a', image: '1' }] }),
    ],
    [
      'nested env changes',
      pod({
        containers: [
          {
            name: 'a',
            env: [
              { name: 'X', value: '1' },
              { name: 'Y', value: '2' },
            ],
          },
        ],
      }),
      pod({
        containers: [
          {
            name: 'a',
            env: [
              { name: 'Y', value: '3' },
              { name: 'Z', value: '4' },
            ],
          },
        ],
      }),
    ],
    ['finalizers added and removed', pod({}, { name: 'p', finalizers: ['a', 'b', 'c'] }), pod({}, { name: 'p', finalizers: ['c', 'd', 'a'] })],
    ['finalizers emptied', pod({}, { name: 'p', finalizers: ['a'] }), pod({}, { name: 'p', finalizers: [] })],
    ['labels changed and removed', pod({}, { name: 'p', labels: { a: '1', b: '2' } }), pod({}, { name: 'p', labels: { a: '2', c: '3' } })],
    ['an atomic list', pod({ tolerations: [{ key: 'a' }] }), pod({ tolerations: [{ key: 'b' }, { key: 'a' }] })],
    [
      'a retainKeys map switching variant',
      pod({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } }),
      pod({ strategy: { type: 'Recreate' } }),
    ],
    [
      'a merge,retainKeys list element switching variant',
      pod({
        volumes: [
          { name: 'v', hostPath: { path: '/x' } },
          { name: 'w', emptyDir: {} },
        ],
      }),
      pod({
        volumes: [
          { name: 'v', emptyDir: { medium: 'Memory' } },
          { name: 'w', emptyDir: {} },
        ],
      }),
    ],
    [
      'a replace-strategy map',
      pod({ containers: [{ name: 'a', securityContext: { runAsUser: 1, runAsNonRoot: true } }] }),
      pod({ containers: [{ name: 'a', securityContext: { runAsUser: 2 } }] }),
    ],
    ['a field removed entirely', pod({ replicas: 3, nodeSelector: { a: 'b' } }), pod({ replicas: 3 })],
  ];

  it.each(roundTrips)('turns the original into the modified object: %s', (_name, original, modified) => {
    const patch = createStrategicMergePatch(original, modified, workloadSchema);
    expect(strategicMergePatch(original, patch, workloadSchema)).toEqual(modified);
  });

  it('sends only the changed elements of a keyed list, deletions and the element order', () => {
    const patch = createStrategicMergePatch(
      pod({ containers: [{ name: 'a', image: '1' }, { name: 'b' }, { name: 'c' }] }),
      pod({ containers: [{ name: 'c' }, { name: 'a', image: '2' }] }),
      workloadSchema,
    );
    expect(patch).toEqual({
      spec: {
        containers: [
          { name: 'a', image: '2' },
          { name: 'b', $patch: 'delete' },
        ],
        '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }],
      },
    });
  });

  it('uses $deleteFromPrimitiveList for removed set members', () => {
    const patch = createStrategicMergePatch(pod({}, { finalizers: ['a', 'b'] }), pod({}, { finalizers: ['a', 'c'] }), workloadSchema);
    expect(patch).toEqual({
      metadata: { finalizers: ['c'], '$deleteFromPrimitiveList/finalizers': ['b'], '$setElementOrder/finalizers': ['a', 'c'] },
    });
  });

  it('builds $retainKeys for a retainKeys field', () => {
    const patch = createStrategicMergePatch(
      pod({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } }),
      pod({ strategy: { type: 'Recreate' } }),
      workloadSchema,
    );
    expect(patch).toEqual({ spec: { strategy: { type: 'Recreate', rollingUpdate: null, $retainKeys: ['type'] } } });
  });

  it('is empty when nothing changed', () => {
    const object = pod({ containers: [{ name: 'a' }] }, { name: 'p', finalizers: ['x'] });
    expect(createStrategicMergePatch(object, object, workloadSchema)).toEqual({});
  });
});
