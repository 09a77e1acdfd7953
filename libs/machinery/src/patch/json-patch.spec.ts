import { JsonObject, PatchError, jsonPatch } from './index';
import { thrownBy } from '../testing/thrown-by';

const refusal = (run: () => unknown): PatchError => thrownBy(run, PatchError);

const pod = (): JsonObject => ({
  metadata: { name: 'p', labels: { app: 'web' }, finalizers: ['a', 'b'] },
  spec: { containers: [{ name: 'app', image: 'app:1' }] },
});

describe('jsonPatch', () => {
  it('applies add, replace, remove, move, copy and test in order', () => {
    const result = jsonPatch(pod(), [
      { op: 'test', path: '/metadata/labels/app', value: 'web' },
      { op: 'add', path: '/metadata/labels/tier', value: 'front' },
      { op: 'replace', path: '/spec/containers/0/image', value: 'app:2' },
      { op: 'add', path: '/metadata/finalizers/-', value: 'c' },
      { op: 'remove', path: '/metadata/finalizers/0' },
      { op: 'copy', from: '/metadata/labels/app', path: '/metadata/labels/copied' },
      { op: 'move', from: '/metadata/labels/tier', path: '/metadata/labels/layer' },
    ]);
    expect(result).toEqual({
      metadata: { name: 'p', labels: { app: 'web', copied: 'web', layer: 'front' }, finalizers: ['b', 'c'] },
      spec: { containers: [{ name: 'app', image: 'app:2' }] },
    });
  });

  it('leaves the inputs untouched and shares nothing with the patch', () => {
    const original = pod();
    const before = JSON.stringify(original);
    const value = { name: 'side', image: 'proxy' };
    const patch = [{ op: 'add', path: '/spec/containers/-', value }];
    const result = jsonPatch(original, patch);
    expect(JSON.stringify(original)).toBe(before);
    const containers = (result.spec as JsonObject).containers as JsonObject[];
    expect(containers[1]).toEqual(value);
    expect(containers[1]).not.toBe(value);
  });

  it('answers a failed test operation as Invalid and names the operation', () => {
    const error = refusal(() =>
      jsonPatch(pod(), [
        { op: 'test', path: '/metadata/labels/app', value: 'db' },
        { op: 'remove', path: '/metadata/labels/app' },
      ]),
    );
    expect(error.kind).toBe('Invalid');
    expect(error.message).toBe('JSON patch operation 0 (test /metadata/labels/app) failed: the value at the path is not the tested value');
  });

  it('applies nothing when a later operation fails', () => {
    const original = pod();
    expect(() =>
      jsonPatch(original, [
        { op: 'replace', path: '/metadata/name', value: 'q' },
        { op: 'test', path: '/metadata/name', value: 'p' },
      ]),
    ).toThrow(PatchError);
    expect((original.metadata as JsonObject).name).toBe('p');
  });

  it('answers a path missing from the object as Invalid', () => {
    const remove = refusal(() => jsonPatch(pod(), [{ op: 'remove', path: '/metadata/annotations' }]));
    expect(remove.kind).toBe('Invalid');
    expect(remove.message).toContain('the path does not exist');
    const add = refusal(() => jsonPatch(pod(), [{ op: 'add', path: '/status/phase', value: 'Running' }]));
    expect(add.kind).toBe('Invalid');
    const index = refusal(() => jsonPatch(pod(), [{ op: 'add', path: '/metadata/finalizers/9', value: 'x' }]));
    expect(index.kind).toBe('Invalid');
  });

  it('answers a move or copy from a missing path as Invalid, naming the operation that failed', () => {
    for (const from of ['/metadata/annotations', '/metadata/finalizers/7', '/metadata/finalizers/x', '/metadata/name/more', '/metadata/toString']) {
      const error = refusal(() =>
        jsonPatch(pod(), [
          { op: 'add', path: '/metadata/labels/tier', value: 'a' },
          { op: 'copy', from, path: '/metadata/labels/copied' },
        ]),
      );
      expect(error.kind).toBe('Invalid');
      expect(error.message).toBe(`JSON patch operation 1 (copy /metadata/labels/copied) failed: the "from" path does not exist in the object`);
    }
    expect(refusal(() => jsonPatch(pod(), [{ op: 'move', from: '/spec/volumes', path: '/spec/v' }])).message).toContain('the "from" path does not exist');
  });

  it('copies and moves from escaped keys and array elements', () => {
    const original: JsonObject = { metadata: { name: 'p', annotations: { 'a/b~c': 'v' } }, spec: { list: [{ x: 1 }, { x: 2 }] } };
    const result = jsonPatch(original, [
      { op: 'copy', from: '/metadata/annotations/a~1b~0c', path: '/metadata/annotations/copied' },
      { op: 'move', from: '/spec/list/1', path: '/spec/moved' },
    ]);
    expect(result).toEqual({ metadata: { name: 'p', annotations: { 'a/b~c': 'v', copied: 'v' } }, spec: { list: [{ x: 1 }], moved: { x: 2 } } });
  });

  it('answers a malformed patch document as BadRequest', () => {
    expect(refusal(() => jsonPatch(pod(), { op: 'add' })).kind).toBe('BadRequest');
    expect(refusal(() => jsonPatch(pod(), ['add'])).kind).toBe('BadRequest');
    expect(refusal(() => jsonPatch(pod(), [{ op: 'frobnicate', path: '/a' }])).kind).toBe('BadRequest');
    expect(refusal(() => jsonPatch(pod(), [{ op: '_get', path: '/a' }])).kind).toBe('BadRequest');
    expect(refusal(() => jsonPatch(pod(), [{ op: 'add', path: '/a' }])).kind).toBe('BadRequest');
    expect(refusal(() => jsonPatch(pod(), [{ op: 'remove' }])).kind).toBe('BadRequest');
    expect(refusal(() => jsonPatch(pod(), [{ op: 'move', path: '/a' }])).kind).toBe('BadRequest');
    expect(refusal(() => jsonPatch(pod(), [{ op: 'add', path: 'metadata', value: 1 }])).kind).toBe('BadRequest');
  });

  it('refuses to reach Object.prototype', () => {
    const error = refusal(() => jsonPatch(pod(), [{ op: 'add', path: '/__proto__/polluted', value: 'yes' }]));
    expect(error.kind).toBe('BadRequest');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses to turn the object into something that is not an object', () => {
    expect(refusal(() => jsonPatch(pod(), [{ op: 'replace', path: '', value: [1] }])).kind).toBe('Invalid');
  });

  it('resets managedFields the way the specification describes', () => {
    const live: JsonObject = { metadata: { name: 'p', managedFields: [{ manager: 'kubectl', operation: 'Apply' }] } };
    const result = jsonPatch(live, [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }]);
    expect(result).toEqual({ metadata: { name: 'p', managedFields: [{}] } });
  });
});
