import { JsonObject, JsonValue, PatchError, strategicMergePatch } from './index';
import { workloadSchema } from './testing/workload-schema';
import { thrownBy } from '../testing/thrown-by';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

function smp(original: JsonObject, patch: JsonValue): JsonObject {
  return strategicMergePatch(deepFreeze(original), deepFreeze(patch), workloadSchema);
}

function spec(fields: JsonObject): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: fields };
}

const refusal = (run: () => unknown): PatchError => thrownBy(run, PatchError);

describe('strategicMergePatch', () => {
  describe('lists of objects with a merge key', () => {
    const original = spec({
      containers: [
        { name: 'app', image: 'app:1', ports: [{ containerPort: 80, protocol: 'TCP' }] },
        { name: 'sidecar', image: 'proxy:1' },
      ],
    });

    it('updates the element whose merge key matches and keeps the others', () => {
      const result = smp(original, { spec: { containers: [{ name: 'sidecar', image: 'proxy:2' }] } });
      expect(result.spec).toEqual({
        containers: [
          { name: 'app', image: 'app:1', ports: [{ containerPort: 80, protocol: 'TCP' }] },
          { name: 'sidecar', image: 'proxy:2' },
        ],
      });
    });

    it('adds a new element before the live ones, as Kubernetes orders it', () => {
      const result = smp(original, { spec: { containers: [{ name: 'debug', image: 'busybox' }] } });
      expect((result.spec as JsonObject).containers).toEqual([
        { name: 'debug', image: 'busybox' },
        { name: 'app', image: 'app:1', ports: [{ containerPort: 80, protocol: 'TCP' }] },
        { name: 'sidecar', image: 'proxy:1' },
      ]);
    });

    it('keeps the patch order for the elements the patch names', () => {
      const live = spec({ containers: [{ name: '1' }, { name: '2', image: 'b' }, { name: '3' }] });
      const result = smp(live, {
        spec: {
          containers: [
            { name: '3', image: 'c' },
            { name: '1', image: 'a' },
          ],
        },
      });
      expect((result.spec as JsonObject).containers).toEqual([
        { name: '2', image: 'b' },
        { name: '3', image: 'c' },
        { name: '1', image: 'a' },
      ]);
    });

    it('merges nested keyed lists: ports by containerPort inside the container named in the patch', () => {
      const result = smp(original, {
        spec: {
          containers: [
            {
              name: 'app',
              ports: [
                { containerPort: 80, name: 'http' },
                { containerPort: 443, name: 'https' },
              ],
            },
          ],
        },
      });
      const app = ((result.spec as JsonObject).containers as JsonObject[])[0];
      expect(app.ports).toEqual([
        { containerPort: 80, protocol: 'TCP', name: 'http' },
        { containerPort: 443, name: 'https' },
      ]);
    });

    it('merges env by name through a $ref to the element schema', () => {
      const live = spec({
        containers: [
          {
            name: 'app',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
        ],
      });
      const result = smp(live, {
        spec: {
          containers: [
            {
              name: 'app',
              env: [
                { name: 'B', value: '20' },
                { name: 'C', value: '3' },
              ],
            },
          ],
        },
      });
      expect(((result.spec as JsonObject).containers as JsonObject[])[0].env).toEqual([
        { name: 'A', value: '1' },
        { name: 'B', value: '20' },
        { name: 'C', value: '3' },
      ]);
    });

    it('reads the strategy through allOf', () => {
      const live = spec({
        initContainers: [
          { name: 'init', image: 'a' },
          { name: 'other', image: 'b' },
        ],
      });
      const result = smp(live, { spec: { initContainers: [{ name: 'init', image: 'c' }] } });
      expect((result.spec as JsonObject).initContainers).toEqual([
        { name: 'init', image: 'c' },
        { name: 'other', image: 'b' },
      ]);
    });

    it('merges a list declared only as x-svc-list-type map on its first map key', () => {
      const live = spec({
        containers: [
          {
            name: 'app',
            volumeMounts: [
              { name: 'data', mountPath: '/data' },
              { name: 'tmp', mountPath: '/tmp' },
            ],
          },
        ],
      });
      const result = smp(live, { spec: { containers: [{ name: 'app', volumeMounts: [{ mountPath: '/data', readOnly: true }] }] } });
      expect(((result.spec as JsonObject).containers as JsonObject[])[0].volumeMounts).toEqual([
        { name: 'data', mountPath: '/data', readOnly: true },
        { name: 'tmp', mountPath: '/tmp' },
      ]);
    });

    it('deletes an element with $patch: delete, all duplicates included', () => {
      const live = spec({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'b', image: 'dup' }, { name: 'c' }] });
      const result = smp(live, { spec: { containers: [{ name: 'b', $patch: 'delete' }] } });
      expect((result.spec as JsonObject).containers).toEqual([{ name: 'a' }, { name: 'c' }]);
    });

    it('deletes one element and adds another in the same patch', () => {
      const live = spec({ containers: [{ name: 'a' }, { name: 'b' }] });
      const result = smp(live, { spec: { containers: [{ name: 'c' }, { name: 'a', $patch: 'delete' }] } });
      expect((result.spec as JsonObject).containers).toEqual([{ name: 'c' }, { name: 'b' }]);
    });

    it('ignores $patch: delete for an element that is not there', () => {
      const live = spec({ containers: [{ name: 'a' }] });
      expect(smp(live, { spec: { containers: [{ name: 'zz', $patch: 'delete' }] } })).toEqual(live);
    });

    it('replaces the whole list when one element says $patch: replace', () => {
      const live = spec({ containers: [{ name: 'a', image: 'x' }, { name: 'b' }] });
      const result = smp(live, { spec: { containers: [{ name: 'n', image: 'y' }, { $patch: 'replace' }] } });
      expect((result.spec as JsonObject).containers).toEqual([{ name: 'n', image: 'y' }]);
    });

    it('empties the list with a lone $patch: replace element', () => {
      const live = spec({ containers: [{ name: 'a' }] });
      expect((smp(live, { spec: { containers: [{ $patch: 'replace' }] } }).spec as JsonObject).containers).toEqual([]);
    });

    it('refuses an element without the merge key', () => {
      const live = spec({ containers: [{ name: 'a' }] });
      const error = refusal(() => smp(live, { spec: { containers: [{ image: 'x' }] } }));
      expect(error.kind).toBe('BadRequest');
      expect(error.message).toContain('merge key "name"');
    });

    it('refuses an unknown $patch directive in a list element', () => {
      const live = spec({ containers: [{ name: 'a' }] });
      expect(refusal(() => smp(live, { spec: { containers: [{ name: 'a', $patch: 'explode' }] } })).kind).toBe('BadRequest');
    });

    it('builds a list absent from the object, resolving directives and dropping nulls', () => {
      const result = smp(spec({}), {
        spec: {
          containers: [
            { name: 'a', image: null, env: [{ name: 'X', value: '1' }] },
            { name: 'gone', $patch: 'delete' },
          ],
        },
      });
      expect((result.spec as JsonObject).containers).toEqual([{ name: 'a', env: [{ name: 'X', value: '1' }] }]);
    });
  });

  describe('lists of primitives', () => {
    const withFinalizers = (finalizers: string[]): JsonObject => ({ metadata: { name: 'p', finalizers } });

    it('merges a set-like list as a union without duplicates', () => {
      const result = smp(withFinalizers(['a', 'b']), { metadata: { finalizers: ['b', 'c'] } });
      expect((result.metadata as JsonObject).finalizers).toEqual(['a', 'b', 'c']);
    });

    it('puts a new value before the live values it has no position against', () => {
      const result = smp(withFinalizers(['a', 'b']), { metadata: { finalizers: ['c'] } });
      expect((result.metadata as JsonObject).finalizers).toEqual(['c', 'a', 'b']);
    });

    it('keeps the patch order for values the patch names', () => {
      const result = smp(withFinalizers(['1', '2', '3']), { metadata: { finalizers: ['3', '1'] } });
      expect((result.metadata as JsonObject).finalizers).toEqual(['2', '3', '1']);
    });

    it('removes values listed in $deleteFromPrimitiveList', () => {
      const result = smp(withFinalizers(['a', 'b', 'c']), { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'x'] } });
      expect((result.metadata as JsonObject).finalizers).toEqual(['a', 'c']);
    });

    it('adds and deletes in one patch', () => {
      const result = smp(withFinalizers(['a', 'b']), {
        metadata: { finalizers: ['c'], '$deleteFromPrimitiveList/finalizers': ['a'] },
      });
      expect((result.metadata as JsonObject).finalizers).toEqual(['c', 'b']);
    });

    it('does not create a list from $deleteFromPrimitiveList alone', () => {
      const result = smp({ metadata: { name: 'p' } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } });
      expect(result).toEqual({ metadata: { name: 'p' } });
    });

    it('refuses a $deleteFromPrimitiveList that is not a list', () => {
      const error = refusal(() => smp(withFinalizers(['a']), { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }));
      expect(error.kind).toBe('BadRequest');
    });

    it('replaces an atomic list and a list without markers', () => {
      const live = spec({ containers: [{ name: 'app', command: ['a', 'b'], args: ['x'] }] });
      const result = smp(live, { spec: { containers: [{ name: 'app', command: ['c'], args: ['y', 'z'] }] } });
      expect(((result.spec as JsonObject).containers as JsonObject[])[0]).toEqual({ name: 'app', command: ['c'], args: ['y', 'z'] });
    });

    it('replaces an atomic list of objects', () => {
      const live = spec({ tolerations: [{ key: 'a', operator: 'Exists' }] });
      const result = smp(live, { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } });
      expect((result.spec as JsonObject).tolerations).toEqual([{ key: 'b', operator: 'Exists' }]);
    });
  });

  describe('maps', () => {
    it('merges maps recursively and deletes fields set to null', () => {
      const live: JsonObject = { metadata: { name: 'p', labels: { app: 'web', tier: 'front' }, annotations: { a: '1' } } };
      const result = smp(live, { metadata: { labels: { tier: null, version: 'v2' }, annotations: null } });
      expect(result).toEqual({ metadata: { name: 'p', labels: { app: 'web', version: 'v2' } } });
    });

    it('ignores a null for a field the object does not have, and drops nulls inside new maps', () => {
      const result = smp({ metadata: { name: 'p' } }, { metadata: { uid: null, labels: { a: 'x', b: null } } });
      expect(result).toEqual({ metadata: { name: 'p', labels: { a: 'x' } } });
    });

    it('replaces a map wholesale with $patch: replace', () => {
      const live = spec({ nodeSelector: { zone: 'a', disk: 'ssd' } });
      const result = smp(live, { spec: { nodeSelector: { $patch: 'replace', gpu: 'yes' } } });
      expect((result.spec as JsonObject).nodeSelector).toEqual({ gpu: 'yes' });
    });

    it('empties a map with $patch: delete', () => {
      const live = spec({ nodeSelector: { zone: 'a' } });
      expect((smp(live, { spec: { nodeSelector: { $patch: 'delete' } } }).spec as JsonObject).nodeSelector).toEqual({});
    });

    it('replaces the whole object with $patch: replace at the top', () => {
      const live = spec({ replicas: 1 });
      expect(smp(live, { $patch: 'replace', kind: 'Pod' })).toEqual({ kind: 'Pod' });
    });

    it('accepts $patch: merge on a map as the default behaviour', () => {
      const live = spec({ nodeSelector: { zone: 'a' } });
      const result = smp(live, { spec: { nodeSelector: { $patch: 'merge', disk: 'ssd' } } });
      expect((result.spec as JsonObject).nodeSelector).toEqual({ zone: 'a', disk: 'ssd' });
    });

    it('refuses an unknown $patch directive on a map', () => {
      expect(refusal(() => smp(spec({}), { spec: { $patch: 'nope' } })).kind).toBe('BadRequest');
    });

    it('replaces a map whose schema says x-svc-patch-strategy replace', () => {
      const live = spec({ containers: [{ name: 'app', securityContext: { runAsUser: 1000, runAsNonRoot: true } }] });
      const result = smp(live, { spec: { containers: [{ name: 'app', securityContext: { runAsUser: 0 } }] } });
      expect(((result.spec as JsonObject).containers as JsonObject[])[0].securityContext).toEqual({ runAsUser: 0 });
    });

    it('treats int-or-string values as scalars', () => {
      const live = spec({ containers: [{ name: 'app', resources: { limits: { cpu: '500m', memory: '1Gi' } } }] });
      const result = smp(live, { spec: { containers: [{ name: 'app', resources: { limits: { cpu: 2 } } }] } });
      expect(((result.spec as JsonObject).containers as JsonObject[])[0].resources).toEqual({ limits: { cpu: 2, memory: '1Gi' } });
    });
  });

  describe('$retainKeys', () => {
    it('clears the fields the directive does not name', () => {
      const live = spec({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } });
      const result = smp(live, { spec: { strategy: { type: 'Recreate', $retainKeys: ['type'] } } });
      expect((result.spec as JsonObject).strategy).toEqual({ type: 'Recreate' });
    });

    it('merges normally without the directive', () => {
      const live = spec({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } });
      const result = smp(live, { spec: { strategy: { rollingUpdate: { maxUnavailable: 0 } } } });
      expect((result.spec as JsonObject).strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    });

    it('applies inside elements of a merge,retainKeys list', () => {
      const live = spec({
        volumes: [
          { name: 'data', hostPath: { path: '/srv' } },
          { name: 'cache', emptyDir: {} },
        ],
      });
      const result = smp(live, { spec: { volumes: [{ name: 'data', emptyDir: { medium: 'Memory' }, $retainKeys: ['emptyDir', 'name'] }] } });
      expect((result.spec as JsonObject).volumes).toEqual([
        { name: 'data', emptyDir: { medium: 'Memory' } },
        { name: 'cache', emptyDir: {} },
      ]);
    });

    it('refuses a patch that sets a field the directive does not name', () => {
      const live = spec({ strategy: { type: 'RollingUpdate' } });
      const error = refusal(() => smp(live, { spec: { strategy: { type: 'Recreate', rollingUpdate: {}, $retainKeys: ['type'] } } }));
      expect(error.kind).toBe('Invalid');
      expect(error.message).toContain('rollingUpdate');
    });

    it('refuses a directive that is not a list of names', () => {
      expect(refusal(() => smp(spec({ strategy: {} }), { spec: { strategy: { $retainKeys: 'type' } } })).kind).toBe('BadRequest');
    });
  });

  describe('$setElementOrder', () => {
    const live = spec({
      containers: [
        { name: 'a', image: '1' },
        { name: 'b', image: '2' },
        { name: 'c', image: '3' },
      ],
    });

    it('reorders a keyed list without changing its elements', () => {
      const result = smp(live, { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'b' }] } });
      expect((result.spec as JsonObject).containers).toEqual([
        { name: 'c', image: '3' },
        { name: 'a', image: '1' },
        { name: 'b', image: '2' },
      ]);
    });

    it('places a new element where the order list says', () => {
      const result = smp(live, {
        spec: {
          '$setElementOrder/containers': [{ name: 'a' }, { name: 'new' }, { name: 'b' }, { name: 'c' }],
          containers: [{ name: 'new', image: 'n' }],
        },
      });
      expect(((result.spec as JsonObject).containers as JsonObject[]).map((c) => c.name)).toEqual(['a', 'new', 'b', 'c']);
    });

    it('orders what kubectl edit sends: a change, a deletion and the full order', () => {
      const result = smp(live, {
        spec: {
          '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }],
          containers: [
            { name: 'a', image: '10' },
            { name: 'b', $patch: 'delete' },
          ],
        },
      });
      expect((result.spec as JsonObject).containers).toEqual([
        { name: 'c', image: '3' },
        { name: 'a', image: '10' },
      ]);
    });

    it('orders a primitive list, skipping values the list does not hold', () => {
      const result = smp({ metadata: { finalizers: ['1', '3'] } }, { metadata: { '$setElementOrder/finalizers': ['3', '2', '1'] } });
      expect((result.metadata as JsonObject).finalizers).toEqual(['3', '1']);
    });

    it('refuses a patch list whose order contradicts the order list', () => {
      const error = refusal(() =>
        smp(live, {
          spec: {
            '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
            containers: [
              { name: 'c', image: 'x' },
              { name: 'a', image: 'y' },
            ],
          },
        }),
      );
      expect(error.kind).toBe('BadRequest');
      expect(error.message).toContain('$setElementOrder/containers');
    });
  });

  describe('fields the schema does not describe', () => {
    it('follows merge patch rules: maps merge, lists replace', () => {
      const live = spec({ extra: { list: [1, 2], map: { a: 1, b: 2 } }, unknown: { list: [{ name: 'a' }] } });
      const result = smp(live, { spec: { extra: { list: [3], map: { b: null, c: 3 } }, unknown: { list: [{ name: 'b' }] } } });
      expect(result.spec).toEqual({ extra: { list: [3], map: { a: 1, c: 3 } }, unknown: { list: [{ name: 'b' }] } });
    });
  });

  describe('input handling', () => {
    it('never mutates its inputs and shares nothing with them', () => {
      const original = deepFreeze(spec({ containers: [{ name: 'a', env: [{ name: 'X', value: '1' }] }] }));
      const patch = deepFreeze({ spec: { containers: [{ name: 'b', env: [{ name: 'Y', value: '2' }] }] } });
      const result = strategicMergePatch(original, patch, workloadSchema);
      const containers = (result.spec as JsonObject).containers as JsonObject[];
      expect(containers[0]).not.toBe(patch.spec.containers[0]);
      expect(containers[1]).not.toBe(((original.spec as JsonObject).containers as JsonObject[])[0]);
      expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    });

    it('refuses a patch that is not a JSON object', () => {
      expect(refusal(() => smp(spec({}), [])).kind).toBe('BadRequest');
      expect(refusal(() => smp(spec({}), 'x')).kind).toBe('BadRequest');
    });

    it('keeps a "__proto__" key as data', () => {
      const patch = JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}') as JsonObject;
      const result = strategicMergePatch({ metadata: { labels: {} } }, patch, workloadSchema);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(JSON.stringify(result)).toBe('{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}');
    });

    it("refuses a list of lists in a merge list as Invalid, like Kubernetes' 422", () => {
      const error = refusal(() => smp({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [['b']] } }));
      expect(error.kind).toBe('Invalid');
    });
  });
});

describe('strategicMergePatch on long keyed lists', () => {
  // Keys are looked up in maps: four times the items cost about four times the work, where a scan
  // per item (the quadratic way) costs sixteen. The ratio holds on a loaded machine; a time would not.
  const merge = (n: number): number => {
    const live = spec({ containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: 'a' })) });
    const patch = { spec: { containers: Array.from({ length: n }, (_, i) => ({ name: `d${i}`, image: 'b' })) } };
    const started = process.hrtime.bigint();
    const merged = strategicMergePatch(live, patch, workloadSchema);
    const elapsed = Number(process.hrtime.bigint() - started);
    // Merged by key, not replaced: both lists are there.
    expect(((merged.spec as JsonObject).containers as JsonValue[]).length).toBe(2 * n);
    return elapsed;
  };

  it('grows linearly with the list', () => {
    merge(2_000);
    const small = Math.min(merge(5_000), merge(5_000));
    const large = Math.min(merge(20_000), merge(20_000));
    expect(large / small).toBeLessThan(9);
  });
});
