import {
  buildTable,
  builtinScheme,
  compileKind,
  fieldErrorToString,
  kindFromCrd,
  kindsFromCrd,
  withSvcMarkers,
  type CustomResourceDefinition,
  type JsonSchema,
} from '../index';

const widgetSchema: JsonSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 0, exclusiveMinimum: true },
        color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
        replicas: { type: 'integer', default: 1 },
        port: { 'x-svc-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        note: { type: 'string', nullable: true },
        tags: { type: 'array', items: { type: 'string' }, 'x-svc-list-type': 'set' },
        limits: { type: 'object', additionalProperties: { type: 'string', pattern: '^[0-9]+$' } },
        raw: { type: 'object', 'x-svc-preserve-unknown-fields': true },
        template: { type: 'object', 'x-svc-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } },
        owner: { type: 'object', properties: { name: { type: 'string', default: 'nobody' } } },
      },
    },
    status: {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        selector: { type: 'string' },
        conditions: {
          type: 'array',
          'x-svc-list-type': 'map',
          'x-svc-list-map-keys': ['type'],
          items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } },
        },
      },
    },
  },
};

const crd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.svc.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: widgetSchema },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.size', labelSelectorPath: '.status.selector' } },
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        selectableFields: [{ jsonPath: '.spec.color' }],
      },
      {
        name: 'v1beta1',
        served: true,
        storage: false,
        deprecated: true,
        deprecationWarning: 'use v1',
        schema: { openAPIV3Schema: { type: 'object', 'x-svc-preserve-unknown-fields': true } },
      },
      { name: 'v2alpha1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
      { name: 'v0', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
  },
};

const widget = (spec: Record<string, unknown>) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec });

describe('kinds from CustomResourceDefinitions', () => {
  const def = kindFromCrd(crd, 'v1');
  const k = compileKind(def);

  it('describes the resource like a built-in kind', () => {
    expect(def).toMatchObject({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      resource: 'widgets',
      singular: 'widget',
      listKind: 'WidgetList',
      namespaced: true,
      shortNames: ['wd'],
      categories: ['all'],
      subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.size', labelSelectorPath: '.status.selector' } },
      allowCreateOnUpdate: false,
      served: true,
      storage: true,
      source: { type: 'crd', name: 'widgets.example.com' },
    });
    expect(kindFromCrd(crd, 'v1beta1').deprecation).toEqual({ deprecated: true, warning: 'use v1' });
    expect(kindsFromCrd(crd).map((d) => d.version)).toEqual(['v1', 'v1beta1', 'v2alpha1']);
    expect(() => kindFromCrd(crd, 'v9')).toThrow(/no version v9/);
  });

  it('defaults through the same engine', () => {
    const obj = widget({ size: 3, owner: {}, note: null, port: null });
    k.default(obj);
    expect(obj.spec).toEqual({ size: 3, color: 'red', replicas: 1, owner: { name: 'nobody' }, note: null });
  });

  it('validates through the same engine, worded as kube-openapi words a custom resource (metadata as Kubernetes checks ObjectMeta)', () => {
    const bad = widget({ size: 0, color: 'green', port: 1.5, tags: ['a', 'a'], limits: { cpu: 'lots' }, note: 5 });
    bad.metadata.name = 'Not Valid';
    const withStatus = { ...bad, status: { conditions: [{ type: 'Ready' }, { type: 'Synced' }, { type: 'Ready', status: 'True' }] } };
    expect(k.validate(withStatus).map(fieldErrorToString)).toEqual([
      expect.stringMatching(/^metadata\.name: Invalid value: "Not Valid": a lowercase RFC 1123 subdomain/),
      'spec.size: Invalid value: 0: spec.size in body should be greater than 0',
      'spec.color: Unsupported value: "green": supported values: "red", "blue"',
      ': Invalid value: "": "spec.port" must validate at least one schema (anyOf)',
      'spec.port: Invalid value: "number": spec.port in body must be of type integer: "number"',
      'spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"',
      'spec.note: Invalid value: "integer": spec.note in body must be of type string: "integer"',
      'spec.tags[1]: Duplicate value: "a"',
      'spec.limits.cpu: Invalid value: "lots": spec.limits.cpu in body should match \'^[0-9]+$\'',
      'status.conditions[2]: Duplicate value: map[string]interface {}{"type":"Ready"}',
    ]);
    expect(k.validate(widget({})).map(fieldErrorToString)).toEqual(['spec.size: Required value']);
    expect(k.validate(widget({ size: 1, port: 'http' }))).toEqual([]);
  });

  it('applies a name constraint of the CRD on top of the metadata rules', () => {
    const constrained: CustomResourceDefinition = structuredClone(crd);
    const schema = constrained.spec.versions[0].schema!.openAPIV3Schema!;
    schema.properties!.metadata = { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } };
    const kc = compileKind(kindFromCrd(constrained, 'v1'));
    // The CRD's own constraint is checked by kube-openapi, the ObjectMeta rule as Kubernetes' NameIsDNSSubdomain.
    expect(kc.validate({ ...widget({ size: 1 }), metadata: { name: 'toolong' } }).map(fieldErrorToString)).toEqual([
      'metadata.name: Too long: may not be more than 5 bytes',
    ]);
    expect(kc.validate({ ...widget({ size: 1 }), metadata: { name: 'BAD' } }).map((e) => e.field)).toEqual(['metadata.name']);
  });

  it('finds and prunes unknown fields, honouring preserved subtrees and embedded resources', () => {
    const obj = {
      ...widget({
        size: 1,
        mystery: true,
        raw: { anything: { at: 'all' } },
        limits: { cpu: '1' },
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', whatever: 1 }, spec: { x: 'y', z: 1 } },
      }),
      status: { conditions: [{ type: 'Ready', status: 'True', extra: 1 }] },
    };
    expect(k.unknownFields(obj)).toEqual(['spec.mystery', 'spec.template.spec.z', 'status.conditions[0].extra']);
    expect(k.prune(obj)).toEqual(['spec.mystery', 'spec.template.spec.z', 'status.conditions[0].extra']);
    expect(obj.spec).toEqual({
      size: 1,
      raw: { anything: { at: 'all' } },
      limits: { cpu: '1' },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', whatever: 1 }, spec: { x: 'y' } },
    });
    const open = compileKind(kindFromCrd(crd, 'v1beta1'));
    expect(open.unknownFields({ ...widget({ free: 1 }), top: 2 })).toEqual([]);
    expect(open.unknownFields({ ...widget({}), metadata: { name: 'a', bogus: 1 } })).toEqual(['metadata.bogus']);
  });

  it('compiles the same CRD again after an update, OpenAPI 3.0 spellings included', () => {
    for (let i = 0; i < 2; i++) {
      const again = structuredClone(crd);
      Object.assign(again.spec.versions[0].schema!.openAPIV3Schema!, { $id: 'https://example.com/widget', $schema: 'http://json-schema.org/draft-07/schema#' });
      const kc = compileKind(kindFromCrd(again, 'v1'));
      expect(kc.validate(widget({ size: 1 }))).toEqual([]);
      expect(kc.validate(widget({ size: 0 })).map((e) => e.field)).toEqual(['spec.size']);
    }
  });

  it('keeps every field of a version whose CRD preserves unknown fields', () => {
    const legacy = structuredClone(crd);
    legacy.spec.preserveUnknownFields = true;
    expect(compileKind(kindFromCrd(legacy, 'v1')).unknownFields({ ...widget({ size: 1 }), other: 1 })).toEqual([]);
  });

  it('builds table rows from the printer columns', () => {
    const now = new Date('2024-01-01T01:00:00Z');
    const obj = {
      ...widget({ size: 4, color: 'blue' }),
      metadata: { name: 'w1', creationTimestamp: '2024-01-01T00:00:00Z' },
      status: {
        conditions: [
          { type: 'Synced', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
      },
    };
    const table = buildTable(def, [obj], { now, includeObject: 'None' });
    expect(table.columnDefinitions.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Size', 'integer', 0],
      ['Color', 'string', 1],
      ['Ready', 'string', 0],
      ['Age', 'date', 0],
    ]);
    expect(table.rows).toEqual([{ cells: ['w1', 4, 'blue', 'True', '60m'] }]);
    const plain = buildTable(kindFromCrd(crd, 'v2alpha1'), [obj], { now });
    expect(plain.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Age']);
    expect(plain.rows[0].cells).toEqual(['w1', '60m']);
  });

  it('selects by the selectable fields and metadata', () => {
    expect(Object.keys(def.fieldSelectors).sort()).toEqual(['metadata.name', 'metadata.namespace', 'spec.color']);
    expect(def.fieldSelectors['spec.color'](widget({ color: 'blue' }))).toBe('blue');
    expect(def.fieldSelectors['spec.color'](widget({}))).toBe('');
  });

  it('registers its served versions in a scheme next to built-in kinds', () => {
    const scheme = builtinScheme();
    for (const d of kindsFromCrd(crd)) scheme.register(d);
    expect(scheme.byShortName('wd').map((d) => d.version)).toEqual(['v1', 'v1beta1', 'v2alpha1']);
    expect(scheme.resolve('wd').map((d) => `${d.kind}.${d.version}`)).toEqual(['Widget.v1']);
    expect(scheme.resolve('widgets.v1beta1.example.com').map((d) => d.version)).toEqual(['v1beta1']);
    expect(scheme.byResource({ group: 'example.com', version: 'v2alpha1', resource: 'widgets' })?.kind).toBe('Widget');
    expect(scheme.groups().find((g) => g.name === 'example.com')).toEqual({
      name: 'example.com',
      versions: [
        { groupVersion: 'example.com/v1', version: 'v1' },
        { groupVersion: 'example.com/v1beta1', version: 'v1beta1' },
        { groupVersion: 'example.com/v2alpha1', version: 'v2alpha1' },
      ],
      preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' },
    });
    expect(
      scheme
        .byCategory('all')
        .map((d) => d.kind)
        .sort(),
    ).toEqual([
      'CronJob',
      'DaemonSet',
      'Deployment',
      'HorizontalPodAutoscaler',
      'Job',
      'Pod',
      'ReplicaSet',
      'ReplicationController',
      'Service',
      'StatefulSet',
      'Widget',
    ]);
    expect(() => scheme.register(kindFromCrd(crd, 'v1'))).toThrow(/already registered/);
    scheme.register(kindFromCrd(crd, 'v1'), { replace: true });
    expect(scheme.unregisterCrd('widgets.example.com')).toHaveLength(3);
    expect(scheme.byShortName('wd')).toEqual([]);
  });
});

describe('CRD schemas written with Kubernetes markers', () => {
  const kubernetesSpelled: JsonSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
          // A property may be named like a marker, and a default may hold one: neither is renamed.
          'x-kubernetes-note': { type: 'object', default: { 'x-kubernetes-list-type': 'kept' } },
        },
      },
    },
  };

  it('reads x-kubernetes-* as x-svc-*, leaving property names and values alone', () => {
    const read = withSvcMarkers(kubernetesSpelled);
    const spec = read.properties!.spec.properties!;
    expect(spec.raw).toEqual({ type: 'object', 'x-svc-preserve-unknown-fields': true });
    expect(spec.port['x-svc-int-or-string']).toBe(true);
    expect(spec.tags['x-svc-list-type']).toBe('set');
    expect(spec['x-kubernetes-note'].default).toEqual({ 'x-kubernetes-list-type': 'kept' });
    expect(withSvcMarkers({ 'x-kubernetes-list-type': 'atomic', 'x-svc-list-type': 'set' })).toEqual({ 'x-svc-list-type': 'set' });
  });

  it('validates and prunes custom resources by those markers', () => {
    const crd: CustomResourceDefinition = {
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: kubernetesSpelled } }],
      },
    };
    const compiled = compileKind(kindFromCrd(crd, 'v1'));
    const gadget = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { raw: { any: { thing: 1 } }, port: 'http', tags: ['a'] } };
    expect(compiled.validate(gadget)).toEqual([]);
    expect(compiled.unknownFields(gadget)).toEqual([]);
    expect(compiled.validate({ ...gadget, spec: { tags: ['a', 'a'] } }).map(fieldErrorToString)).toEqual([expect.stringContaining('spec.tags[1]')]);
  });
});
