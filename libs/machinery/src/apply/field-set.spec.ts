import { FieldSet, fieldSetOf, formatFieldPath, parsePathElementKey, pathElementKey } from './index';
import { deploymentSchema } from './testing/deployment-schema';

// fieldsV1 as a Kubernetes API server stores it for `kubectl create deployment` (kubectl 1.25).
const kubectlCreate =
  '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},' +
  '"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":' +
  '{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},' +
  '"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},' +
  '"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}';

describe('FieldSet', () => {
  it('reads and writes fieldsV1 byte for byte', () => {
    const set = FieldSet.fromFieldsV1(JSON.parse(kubectlCreate));
    expect(JSON.stringify(set.toFieldsV1())).toBe(kubectlCreate);
    expect(
      set.has([
        { kind: 'field', name: 'metadata' },
        { kind: 'field', name: 'labels' },
      ]),
    ).toBe(true);
    expect(set.has([{ kind: 'field', name: 'metadata' }])).toBe(false);
  });

  it('sorts fields before keys before values before indexes, whatever the input order', () => {
    const set = FieldSet.fromFieldsV1({ 'i:1': {}, 'v:"b"': {}, 'k:{"b":1,"a":"x"}': { 'f:z': {} }, 'v:2': {}, 'f:b': {}, 'f:a': {} });
    expect(Object.keys(set.toFieldsV1())).toEqual(['f:a', 'f:b', 'k:{"a":"x","b":1}', 'v:2', 'v:"b"', 'i:1']);
  });

  it('orders field names as Go does, a character above U+FFFF after U+FFFD, and shorter names first', () => {
    const set = FieldSet.fromFieldsV1({ 'f:b\u{1F600}': {}, 'f:b\uFFFD': {}, 'f:ab': {}, 'f:a': {}, 'f:B': {} });
    expect(Object.keys(set.toFieldsV1())).toEqual(['f:B', 'f:a', 'f:ab', 'f:b\uFFFD', 'f:b\u{1F600}']);
  });

  it('leaves its operands as they were when results share their subtrees', () => {
    const left = FieldSet.fromFieldsV1({ 'f:metadata': { 'f:labels': { 'f:a': {}, 'f:b': {} } } });
    const right = FieldSet.fromFieldsV1({ 'f:spec': { 'f:replicas': {} } });
    const before = JSON.stringify(left.toFieldsV1());
    const union = left.union(right);
    const difference = union.difference(right);
    expect(JSON.stringify(difference.toFieldsV1())).toBe(before);
    expect(JSON.stringify(left.toFieldsV1())).toBe(before);
    expect(union.size()).toBe(3);
  });

  it('prints paths as conflict messages do', () => {
    const set = FieldSet.fromFieldsV1({
      'f:spec': { 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { 'f:name': {} } }, 'f:finalizers': { 'v:"a\\"b"': {} } },
    });
    expect(set.paths().map(formatFieldPath)).toEqual(['.spec.finalizers[="a\\"b"]', '.spec.ports[containerPort=80,protocol="TCP"].name']);
  });

  it('escapes key values the way Go writes JSON', () => {
    const pe = parsePathElementKey('k:{"name":"a<b>&c"}');
    expect(pathElementKey(pe)).toBe('k:{"name":"a\\u003cb\\u003e\\u0026c"}');
  });

  it('refuses malformed fieldsV1', () => {
    expect(() => FieldSet.fromFieldsV1([])).toThrow('fieldsV1 must be a JSON object');
    expect(() => FieldSet.fromFieldsV1({ 'x:y': {} })).toThrow('unknown path element');
    expect(() => FieldSet.fromFieldsV1({ 'k:{nope': {} })).toThrow('not JSON');
    expect(() => FieldSet.fromFieldsV1({ 'f:a': 1 })).toThrow('must be an object');
  });

  it('difference keeps what lies below a removed member; recursiveDifference removes it too', () => {
    const set = FieldSet.fromFieldsV1({ 'f:a': { '.': {}, 'f:b': {} } });
    const a = FieldSet.fromFieldsV1({ 'f:a': {} });
    expect(set.difference(a).toFieldsV1()).toEqual({ 'f:a': { 'f:b': {} } });
    expect(set.recursiveDifference(a).toFieldsV1()).toEqual({});
  });

  it('computes the fields of an object by its schema, leaving server-managed ones out', () => {
    const set = fieldSetOf(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'x', uid: 'u', finalizers: ['f'], ownerReferences: [{ uid: 'o', name: 'owner' }] },
        spec: { template: { spec: { containers: [{ name: 'c', command: ['sh', '-c'], env: [{ name: 'A', value: '1' }] }] } } },
      },
      deploymentSchema,
    );
    expect(set.toFieldsV1()).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"f"': {} }, 'f:ownerReferences': { 'k:{"uid":"o"}': { '.': {}, 'f:name': {}, 'f:uid': {} } } },
      'f:spec': {
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"c"}': { '.': {}, 'f:command': {}, 'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } }, 'f:name': {} },
            },
          },
        },
      },
    });
  });
});
