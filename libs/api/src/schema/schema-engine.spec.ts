import {
  aggregateFieldErrors,
  compileKind,
  configMapDefinition,
  deploymentDefinition,
  fieldErrorToString,
  nodeDefinition,
  podDefinition,
  serviceDefinition,
  type JsonSchema,
} from '../index';

const pod = () => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'x' }, annotations: { 'a/b': 'c' } },
  spec: {
    containers: [{ name: 'c', image: 'i', env: [{ name: 'A', value: 'b' }] }],
    affinity: { nodeAffinity: { anything: { goes: true } } },
    nodeSelector: { disk: 'ssd' },
  },
});

describe('schema engine', () => {
  it('lists unknown fields the way Kubernetes names them, keeping maps and preserved trees', () => {
    const obj = pod() as Record<string, unknown> & ReturnType<typeof pod>;
    Object.assign(obj, { extra: 1 });
    Object.assign(obj.metadata, { nickname: 'x' });
    Object.assign(obj.spec, { foo: { bar: 1 } });
    Object.assign(obj.spec.containers[0], { imagePullPolicyy: 'Always' });
    Object.assign(obj.spec.containers[0].env[0], { valu: 'x' });
    expect(compileKind(podDefinition).unknownFields(obj).sort()).toEqual([
      'extra',
      'metadata.nickname',
      'spec.containers[0].env[0].valu',
      'spec.containers[0].imagePullPolicyy',
      'spec.foo',
    ]);
  });

  it('prunes unknown fields in place and returns their paths', () => {
    const obj = pod() as ReturnType<typeof pod> & { status?: unknown };
    obj.status = { phase: 'Running', surprise: true };
    Object.assign(obj.spec.containers[0], { oops: 1 });
    const pruned = compileKind(podDefinition).prune(obj);
    expect(pruned).toEqual(['spec.containers[0].oops', 'status.surprise']);
    expect(obj.status).toEqual({ phase: 'Running' });
    expect(obj.spec.affinity).toEqual({ nodeAffinity: { anything: { goes: true } } });
    expect(compileKind(podDefinition).unknownFields(obj)).toEqual([]);
  });

  it("maps ajv errors to Kubernetes field errors in the words of Kubernetes' own validation", () => {
    const k = compileKind(serviceDefinition);
    const errors = k.validate({
      metadata: { name: 'x'.repeat(64), labels: { ok: 'a'.repeat(64) } },
      spec: { type: 'Other', ports: [{ port: 'eighty' }], clusterIPs: ['a', 'b', 'c'] },
    });
    expect(errors.map(fieldErrorToString)).toEqual([
      `metadata.name: Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`,
      `metadata.labels: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`,
      'spec.ports[0].port: Invalid value: "eighty": must be of type integer',
      'spec.clusterIPs: Too many: 3: must have at most 2 items',
      'spec.type: Unsupported value: "Other": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ]);
    expect(errors.find((e) => e.field === 'spec.ports[0].port')).toEqual({
      type: 'FieldValueTypeInvalid',
      field: 'spec.ports[0].port',
      badValue: 'eighty',
      detail: 'must be of type integer',
    });
  });

  it('explains name patterns and reports required fields', () => {
    const errors = compileKind(deploymentDefinition).validate({ metadata: { name: 'Web' }, spec: { template: { spec: {} } } });
    expect(errors.map(fieldErrorToString)).toEqual([
      expect.stringMatching(/^metadata\.name: Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of/),
      'spec.selector: Required value',
      'spec.template.spec.containers: Required value',
    ]);
    expect(aggregateFieldErrors(errors.slice(1))).toBe('[spec.selector: Required value, spec.template.spec.containers: Required value]');
  });

  it('checks label keys and values through the schema', () => {
    const k = compileKind(configMapDefinition);
    const errors = k.validate({ metadata: { name: 'c', labels: { '-bad': 'v', 'example.com/ok': 'has space', ['a'.repeat(64)]: '' } } });
    expect(errors.map((e) => [e.field, e.badValue])).toEqual([
      ['metadata.labels', '-bad'],
      ['metadata.labels', 'a'.repeat(64)],
      ['metadata.labels', 'has space'],
    ]);
  });

  it('checks annotation keys case-insensitively and their total size', () => {
    const k = compileKind(configMapDefinition);
    expect(k.validate({ metadata: { name: 'c', annotations: { 'Example.COM/Key': 'v', 'bad key': 'v' } } }).map((e) => [e.field, e.badValue])).toEqual([
      ['metadata.annotations', 'bad key'],
    ]);
    const big = { metadata: { name: 'c', annotations: { a: 'x'.repeat(256 * 1024) } } };
    expect(k.validate(big).map(fieldErrorToString)).toEqual(['metadata.annotations: Too long: may not be more than 262144 bytes']);
  });

  it('allows one controller owner reference at most', () => {
    const k = compileKind(configMapDefinition);
    const ref = (name: string, controller: boolean) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid: `uid-${name}`, controller });
    expect(k.validate({ metadata: { name: 'c', ownerReferences: [ref('a', true), ref('b', false)] } })).toEqual([]);
    expect(k.validate({ metadata: { name: 'c', ownerReferences: [ref('a', true), ref('b', true)] } }).map(fieldErrorToString)).toEqual([
      'metadata.ownerReferences: Invalid value: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b',
    ]);
  });

  it('drops nulls of non-nullable fields before defaulting', () => {
    const k = compileKind(deploymentDefinition);
    const d = {
      metadata: { name: 'web', creationTimestamp: null, labels: null },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        strategy: null,
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i', resources: null }] } },
      },
      status: {},
    };
    expect(
      k
        .validate(d)
        .map((e) => e.field)
        .sort(),
    ).toEqual(['metadata.creationTimestamp', 'metadata.labels', 'spec.strategy', 'spec.template.spec.containers[0].resources']);
    k.default(d);
    expect(k.validate(d)).toEqual([]);
    expect(d.metadata).toEqual({ name: 'web' });
    expect(d.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  });

  it('exposes the ref-free schema with merge markers for patching', () => {
    const k = compileKind(podDefinition);
    expect(JSON.stringify(k.schema)).not.toContain('$ref');
    expect(k.schemaAt(['spec', 'containers'])).toMatchObject({
      type: 'array',
      'x-svc-list-type': 'map',
      'x-svc-list-map-keys': ['name'],
      'x-svc-patch-merge-key': 'name',
      'x-svc-patch-strategy': 'merge',
    });
    expect(k.schemaAt(['spec', 'containers', 0, 'ports'])).toMatchObject({
      'x-svc-list-map-keys': ['containerPort', 'protocol'],
      'x-svc-patch-merge-key': 'containerPort',
    });
    expect(k.schemaAt(['spec', 'containers', 0, 'env'])).toMatchObject({ 'x-svc-list-map-keys': ['name'] });
    expect(k.schemaAt(['spec', 'containers', 0, 'volumeMounts'])).toMatchObject({ 'x-svc-list-map-keys': ['mountPath'] });
    expect(k.schemaAt(['spec', 'containers', 0, 'command'])).toMatchObject({ 'x-svc-list-type': 'atomic' });
    expect(k.schemaAt(['spec', 'volumes'])).toMatchObject({ 'x-svc-list-map-keys': ['name'], 'x-svc-patch-strategy': 'merge,retainKeys' });
    expect(k.schemaAt(['spec', 'tolerations'])).toMatchObject({ 'x-svc-list-type': 'atomic' });
    expect(k.schemaAt(['spec', 'imagePullSecrets'])).toMatchObject({ 'x-svc-list-map-keys': ['name'] });
    expect(k.schemaAt(['spec', 'nodeSelector'])).toMatchObject({ 'x-svc-map-type': 'atomic' });
    expect(k.schemaAt(['status', 'conditions'])).toMatchObject({ 'x-svc-list-map-keys': ['type'] });
    expect(k.schemaAt(['metadata', 'finalizers'])).toMatchObject({ 'x-svc-list-type': 'set' });
    expect(k.schemaAt(['metadata', 'ownerReferences'])).toMatchObject({ 'x-svc-list-map-keys': ['uid'] });
    expect(k.schemaAt(['metadata', 'labels', 'any-key'])).toEqual(expect.objectContaining({ type: 'string' }));
    expect(k.schemaAt(['spec', 'affinity', 'nodeAffinity'])).toBeUndefined();
    expect(k.schemaAt(['spec', 'containers', 0, 'livenessProbe', 'httpGet', 'port'])).toMatchObject({ 'x-svc-int-or-string': true });
    const svc = compileKind(serviceDefinition);
    expect(svc.schemaAt(['spec', 'ports'])).toMatchObject({ 'x-svc-list-map-keys': ['port', 'protocol'], 'x-svc-patch-merge-key': 'port' });
    expect(compileKind(nodeDefinition).schemaAt(['spec', 'taints'])).toMatchObject({ 'x-svc-list-type': 'atomic' });
    expect(compileKind(deploymentDefinition).schemaAt(['spec', 'selector'])).toMatchObject({ 'x-svc-map-type': 'atomic' });
  });

  it('caches one compiled engine per definition', () => {
    expect(compileKind(podDefinition)).toBe(compileKind(podDefinition));
  });

  it('refuses schemas with $ref', () => {
    const schema: JsonSchema = { type: 'object', properties: { a: { $ref: '#/definitions/x' } } };
    expect(() => compileKind({ ...podDefinition, schema })).toThrow(/\$ref/);
  });
});
