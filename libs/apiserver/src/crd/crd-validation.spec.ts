import { builtinScheme, type ApiObject, type FieldError } from '@svc/api';
import { customResourceDefinitionRule, installCrdValidation, validateCustomResourceDefinition } from './crd-validation';
import { structuralSchemaErrors } from './structural-schema';

const at = (errors: FieldError[]) => errors.map((e) => `${e.field}: ${e.type}`);

function crd(overrides: { spec?: Record<string, unknown>; status?: Record<string, unknown>; schema?: unknown } = {}): ApiObject {
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: overrides.schema ?? { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
          },
        },
      ],
      ...overrides.spec,
    },
    ...(overrides.status ? { status: overrides.status } : {}),
  };
}

describe('structural schemas', () => {
  const path = 'spec.versions[0].schema.openAPIV3Schema';

  it('accepts a structural schema with markers where they belong', () => {
    expect(
      structuralSchemaErrors(
        {
          type: 'object',
          properties: {
            metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 20 } } },
            spec: {
              type: 'object',
              properties: {
                port: { 'x-svc-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                raw: { 'x-svc-preserve-unknown-fields': true },
                embedded: { type: 'object', 'x-svc-embedded-resource': true, 'x-svc-preserve-unknown-fields': true },
                tags: { type: 'array', 'x-svc-list-type': 'set', items: { type: 'string' } },
                ports: {
                  type: 'array',
                  'x-svc-list-type': 'map',
                  'x-svc-list-map-keys': ['name', 'protocol'],
                  items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } } },
                },
                labels: { type: 'object', 'x-svc-map-type': 'atomic', additionalProperties: { type: 'string' } },
                choice: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, oneOf: [{ required: ['a'] }, { required: ['b'] }] },
              },
            },
          },
        },
        path,
      ),
    ).toEqual([]);
  });

  it('reports a property that is no schema (null) instead of walking it (found by fuzzing: a 500)', () => {
    const schema = { type: 'object', properties: { spec: null, status: { type: 'object', 'x-svc-validations': [{ rule: 'self.replicas >= 0' }] } } };
    expect(at(validateCustomResourceDefinition(crd({ schema })))).toEqual([`${path}.properties[spec]: FieldValueTypeInvalid`]);
  });

  it('wants a type on every node except int-or-string and preserved ones', () => {
    expect(at(structuralSchemaErrors({ type: 'object', properties: { spec: { properties: { a: { type: 'string' } } }, n: {} } }, path))).toEqual([
      `${path}.properties[spec].type: FieldValueRequired`,
      `${path}.properties[n].type: FieldValueRequired`,
    ]);
    expect(at(structuralSchemaErrors({ type: 'object', properties: { p: { type: 'string', 'x-svc-int-or-string': true } } }, path))).toEqual([
      `${path}.properties[p].type: FieldValueInvalid`,
    ]);
    expect(at(structuralSchemaErrors({ type: 'string' }, path))).toEqual([`${path}.type: FieldValueInvalid`]);
  });

  it('keeps logical junctors to value checks on declared fields', () => {
    const errors = at(
      structuralSchemaErrors(
        {
          type: 'object',
          properties: { a: { type: 'string' } },
          anyOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: { minLength: 1 } } }, { default: {} }],
        },
        path,
      ),
    );
    expect(errors).toEqual([
      `${path}.anyOf[0].properties[a].type: FieldValueForbidden`,
      `${path}.anyOf[1].properties[b]: FieldValueRequired`,
      `${path}.anyOf[2].default: FieldValueForbidden`,
    ]);
  });

  it('refuses keywords a structural schema cannot have', () => {
    const errors = at(
      structuralSchemaErrors(
        {
          type: 'object',
          properties: {
            r: { $ref: '#/x' },
            u: { type: 'array', uniqueItems: true, items: { type: 'string' } },
            both: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
            closed: { type: 'object', additionalProperties: false },
            keep: { type: 'object', 'x-svc-preserve-unknown-fields': false },
            pp: { type: 'object', patternProperties: { '^a': { type: 'string' } } },
          },
        },
        path,
      ),
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        `${path}.properties[r].$ref: FieldValueForbidden`,
        `${path}.properties[u].uniqueItems: FieldValueForbidden`,
        `${path}.properties[both].additionalProperties: FieldValueForbidden`,
        `${path}.properties[closed].additionalProperties: FieldValueForbidden`,
        `${path}.properties[keep].x-svc-preserve-unknown-fields: FieldValueInvalid`,
        `${path}.properties[pp].patternProperties: FieldValueForbidden`,
      ]),
    );
  });

  it('checks list and map markers', () => {
    const errors = at(
      structuralSchemaErrors(
        {
          type: 'object',
          properties: {
            notList: { type: 'string', 'x-svc-list-type': 'set' },
            noKeys: { type: 'array', 'x-svc-list-type': 'map', items: { type: 'object', properties: { name: { type: 'string' } } } },
            badKey: {
              type: 'array',
              'x-svc-list-type': 'map',
              'x-svc-list-map-keys': ['name', 'nested', 'missing'],
              items: { type: 'object', required: ['nested'], properties: { name: { type: 'string' }, nested: { type: 'object' } } },
            },
            keysWithoutMap: { type: 'array', 'x-svc-list-type': 'atomic', 'x-svc-list-map-keys': ['a'], items: { type: 'string' } },
            setOfObjects: { type: 'array', 'x-svc-list-type': 'set', items: { type: 'object' } },
            mapOnString: { type: 'string', 'x-svc-map-type': 'granular' },
          },
        },
        path,
      ),
    );
    expect(errors).toEqual([
      `${path}.properties[notList].type: FieldValueInvalid`,
      `${path}.properties[noKeys].x-svc-list-map-keys: FieldValueRequired`,
      `${path}.properties[badKey].x-svc-list-map-keys[0]: FieldValueRequired`,
      `${path}.properties[badKey].x-svc-list-map-keys[1]: FieldValueInvalid`,
      `${path}.properties[badKey].x-svc-list-map-keys[2]: FieldValueInvalid`,
      `${path}.properties[keysWithoutMap].x-svc-list-map-keys: FieldValueForbidden`,
      `${path}.properties[setOfObjects].items.type: FieldValueInvalid`,
      `${path}.properties[mapOnString].type: FieldValueInvalid`,
    ]);
  });

  it('lets metadata restrict only name and generateName', () => {
    expect(
      at(structuralSchemaErrors({ type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } }, path)),
    ).toEqual([`${path}.properties[metadata].properties[labels]: FieldValueForbidden`]);
  });
});

describe('CustomResourceDefinition validation', () => {
  it('accepts a well-formed definition', () => {
    expect(validateCustomResourceDefinition(crd())).toEqual([]);
  });

  it('wants a served version, DNS-1035 version names and a dotted group', () => {
    const errors = at(
      validateCustomResourceDefinition(
        crd({ spec: { group: 'example', versions: [{ name: 'V1', served: false, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] } }),
      ),
    );
    expect(errors).toEqual(['spec.group: FieldValueInvalid', 'spec.versions: FieldValueInvalid', 'spec.versions[0].name: FieldValueInvalid']);
  });

  it('refuses preserveUnknownFields, duplicate short names and scale paths outside spec and status', () => {
    const errors = at(
      validateCustomResourceDefinition(
        crd({
          spec: {
            preserveUnknownFields: true,
            names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd', 'wd'] },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object' } },
                subresources: { scale: { specReplicasPath: '.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.selector' } },
              },
            ],
          },
        }),
      ),
    );
    expect(errors).toEqual([
      'spec.preserveUnknownFields: FieldValueInvalid',
      'spec.names.shortNames[1]: FieldValueDuplicate',
      'spec.versions[0].subresources.scale.specReplicasPath: FieldValueInvalid',
      'spec.versions[0].subresources.scale.labelSelectorPath: FieldValueInvalid',
    ]);
  });

  it('reports structural errors under the version’s path', () => {
    expect(at(validateCustomResourceDefinition(crd({ schema: { type: 'object', properties: { spec: {} } } })))).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: FieldValueRequired',
    ]);
  });

  it('keeps stored versions in the spec on update', () => {
    const old = crd({ status: { storedVersions: ['v1beta1', 'v1'] } });
    expect(at(validateCustomResourceDefinition(crd(), old))).toEqual(['spec.versions: FieldValueInvalid']);
    expect(at(validateCustomResourceDefinition(crd({ spec: { scope: 'Cluster' } }), crd({ status: { storedVersions: ['v1'] } })))).toEqual([
      'spec.scope: FieldValueInvalid',
    ]);
  });

  it('is added once to the CustomResourceDefinition kind’s validation rules', () => {
    const scheme = builtinScheme();
    const def = installCrdValidation(scheme);
    installCrdValidation(scheme);
    expect(def.validationRules.filter((r) => r === customResourceDefinitionRule)).toHaveLength(1);
    // Together with the kind's own rule: both run on a create, neither repeats the other.
    const errors = def.validationRules.flatMap((rule) => rule(crd({ spec: { versions: [] } })));
    expect(at(errors)).toEqual([]);
    const twoStorage = crd({
      spec: {
        versions: [
          { name: 'v1', served: false, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
          { name: 'v2', served: false, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        ],
      },
    });
    expect(at(def.validationRules.flatMap((rule) => rule(twoStorage)))).toEqual(['spec.versions: FieldValueInvalid', 'spec.versions: FieldValueInvalid']);
  });
});

describe('spec.conversion', () => {
  const webhook = (clientConfig: Record<string, unknown>, conversionReviewVersions = ['v1']) => ({ clientConfig, conversionReviewVersions });
  const errorsOf = (conversion: Record<string, unknown>) => at(validateCustomResourceDefinition(crd({ spec: { conversion } })));

  it('accepts a webhook by URL or by service when the strategy is Webhook', () => {
    expect(errorsOf({ strategy: 'Webhook', webhook: webhook({ url: 'https://127.0.0.1:9443/convert', caBundle: 'Y2E=' }) })).toEqual([]);
    expect(errorsOf({ strategy: 'Webhook', webhook: webhook({ service: { namespace: 'ops', name: 'conv', path: '/convert', port: 8443 } }) })).toEqual([]);
    expect(errorsOf({ strategy: 'None' })).toEqual([]);
  });

  it('refuses a webhook without the Webhook strategy, and the strategy without a webhook', () => {
    expect(errorsOf({ strategy: 'None', webhook: webhook({ url: 'https://a.example.com' }) })).toEqual(['spec.conversion.webhook: FieldValueForbidden']);
    expect(errorsOf({ strategy: 'Webhook' })).toEqual(['spec.conversion.webhook: FieldValueRequired']);
    expect(errorsOf({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } })).toEqual([
      'spec.conversion.webhook.clientConfig: FieldValueRequired',
    ]);
  });

  it('wants exactly one of url and service, an https URL without user or query, and a known review version', () => {
    expect(errorsOf({ strategy: 'Webhook', webhook: webhook({}) })).toEqual(['spec.conversion.webhook.clientConfig: FieldValueRequired']);
    expect(errorsOf({ strategy: 'Webhook', webhook: webhook({ url: 'https://a.example.com', service: { namespace: 'a', name: 'b' } }) })).toEqual([
      'spec.conversion.webhook.clientConfig: FieldValueRequired',
    ]);
    expect(errorsOf({ strategy: 'Webhook', webhook: webhook({ url: 'http://a.example.com/convert' }) })).toEqual([
      'spec.conversion.webhook.clientConfig.url: FieldValueInvalid',
    ]);
    expect(errorsOf({ strategy: 'Webhook', webhook: webhook({ url: 'https://u:p@a.example.com/?x=1' }) })).toEqual([
      'spec.conversion.webhook.clientConfig.url: FieldValueInvalid',
      'spec.conversion.webhook.clientConfig.url: FieldValueInvalid',
    ]);
    expect(errorsOf({ strategy: 'Webhook', webhook: webhook({ service: { namespace: 'a', name: 'b', path: 'convert' } }) })).toEqual([
      'spec.conversion.webhook.clientConfig.service.path: FieldValueInvalid',
    ]);
    expect(errorsOf({ strategy: 'Webhook', webhook: webhook({ url: 'https://a.example.com' }, ['v2']) })).toEqual([
      'spec.conversion.webhook.conversionReviewVersions: FieldValueInvalid',
    ]);
  });
});
