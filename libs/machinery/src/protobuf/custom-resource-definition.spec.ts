import {
  EnvelopeError,
  decodeEnvelope,
  decodeKubernetesMessage,
  decodeProtobufObject,
  encodeKubernetesMessage,
  encodeProtobufObject,
  protobufUnknownFields,
} from './index';
import { thrownBy } from '../testing/thrown-by';

/**
 * The hand-marshalled parts of a CustomResourceDefinition's schema (apiextensions v1's marshal.go),
 * form by form, beside the fully populated fixtures of the gate (libs/api's kubernetes-protobuf.spec).
 */
const SCHEMA = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const encode = (schema: Record<string, unknown>): string => hex(encodeKubernetesMessage(SCHEMA, schema));
const roundTrip = (schema: Record<string, unknown>): Record<string, unknown> => decodeKubernetesMessage(SCHEMA, encodeKubernetesMessage(SCHEMA, schema));

/** The tag and length of a length-delimited field, then its body. */
function field(tag: string, body: string): string {
  const length = body.length / 2;
  const varint =
    length < 0x80 ? length.toString(16).padStart(2, '0') : `${((length & 0x7f) | 0x80).toString(16)}${(length >> 7).toString(16).padStart(2, '0')}`;
  return `${tag}${varint}${body}`;
}

function crd(schema: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
}

const envelopeError = (run: () => unknown): EnvelopeError => thrownBy(run, EnvelopeError);

describe("a custom resource definition's schema in protobuf", () => {
  // Every value field of an empty JSONSchemaProps, written zero as gogo-protobuf writes them:
  // id, $schema, description, type, format, title, exclusiveMaximum, exclusiveMinimum, pattern,
  // uniqueItems, nullable, x-kubernetes-embedded-resource, x-kubernetes-int-or-string.
  const EMPTY = '0a00120022002a0032003a00500060007a00900100a80200b80200c00200';
  const STRING = EMPTY.replace('2a00', '2a06737472696e67');

  it('writes an empty schema as its zero value fields', () => {
    expect(encode({})).toBe(EMPTY);
    expect(encode({ type: 'string' })).toBe(STRING);
  });

  it('writes additionalProperties false, true and a schema as JSONSchemaPropsOrBool, allows always written', () => {
    // Field 30 sits between uniqueItems (18) and nullable (37).
    const at = (union: string) => EMPTY.replace('900100', `900100${field('f201', union)}`);
    expect(encode({ additionalProperties: false })).toBe(at('0800'));
    expect(encode({ additionalProperties: true })).toBe(at('0801'));
    expect(encode({ additionalProperties: { type: 'string' } })).toBe(at(`0801${field('12', STRING)}`));
    for (const additionalProperties of [false, true, { type: 'string' }, {}]) {
      expect(roundTrip({ additionalProperties })).toEqual({ additionalProperties });
      expect(roundTrip({ additionalItems: additionalProperties })).toEqual({ additionalItems: additionalProperties });
    }
  });

  it('reads a JSONSchemaPropsOrBool with a schema as the schema, whatever allows says (as MarshalJSON does)', () => {
    const bytes = Buffer.from(EMPTY.replace('900100', `900100${field('f201', `0800${field('12', STRING)}`)}`), 'hex');
    expect(decodeKubernetesMessage(SCHEMA, bytes)).toEqual({ additionalProperties: { type: 'string' } });
  });

  it('writes items as JSONSchemaPropsOrArray: a schema as field 1, an array of schemas as field 2', () => {
    // Field 24 follows uniqueItems (18).
    const at = (union: string) => EMPTY.replace('900100', `900100${field('c201', union)}`);
    expect(encode({ items: { type: 'string' } })).toBe(at(field('0a', STRING)));
    expect(encode({ items: [{ type: 'string' }, {}] })).toBe(at(`${field('12', STRING)}${field('12', EMPTY)}`));
    expect(roundTrip({ items: { type: 'string' } })).toEqual({ items: { type: 'string' } });
    expect(roundTrip({ items: [{ type: 'string' }, {}] })).toEqual({ items: [{ type: 'string' }, {}] });
    // An empty array leaves an empty union, which Go writes back as null.
    expect(roundTrip({ items: [] })).toEqual({ items: null });
  });

  it('writes dependencies as a map of JSONSchemaPropsOrStringArray, keys sorted', () => {
    const schema = { dependencies: { zone: ['region'], bucket: { required: ['endpoint'] } } };
    const entries =
      field(
        '8202',
        `${field('0a', Buffer.from('bucket').toString('hex'))}${field('12', field('0a', EMPTY.replace('900100', `900100${field('ba01', Buffer.from('endpoint').toString('hex'))}`)))}`,
      ) + field('8202', `${field('0a', Buffer.from('zone').toString('hex'))}${field('12', field('12', Buffer.from('region').toString('hex')))}`);
    expect(encode(schema)).toBe(EMPTY.replace('900100', `900100${entries}`));
    expect(roundTrip(schema)).toEqual(schema);
  });

  it('writes default, example and enum items as their raw JSON, null as an empty message', () => {
    const schema = { default: { days: 7, tags: ['a'] }, example: 'x', enum: ['Full', 2.5, null, { level: 'max' }] };
    const bytes = encode(schema);
    expect(bytes).toContain(field('42', field('0a', Buffer.from('{"days":7,"tags":["a"]}').toString('hex'))));
    expect(bytes).toContain(field('a202', field('0a', Buffer.from('"x"').toString('hex'))));
    expect(bytes).toContain(`${field('a201', field('0a', Buffer.from('2.5').toString('hex')))}a20100`);
    expect(roundTrip(schema)).toEqual(schema);
    // A default of JSON null is a nil pointer in Go: not written at all.
    expect(encode({ default: null })).toBe(EMPTY);
  });

  it('keeps $ref, $schema, the x-kubernetes fields and every field of a validation rule', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      $ref: '#/definitions/a',
      'x-kubernetes-preserve-unknown-fields': false,
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-int-or-string': true,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name', 'zone'],
      'x-kubernetes-map-type': 'atomic',
      'x-kubernetes-validations': [
        { rule: 'self.a > 0', message: 'm', messageExpression: "'e'", reason: 'FieldValueInvalid', fieldPath: '.a', optionalOldSelf: true },
        { rule: 'self.b' },
      ],
    };
    expect(roundTrip(schema)).toEqual(schema);
  });

  it('reads a whole CRD from its envelope as it was written', () => {
    const object = crd({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          additionalProperties: false,
          properties: { replicas: { type: 'integer', minimum: 0, default: 1 }, port: { 'x-kubernetes-int-or-string': true } },
        },
      },
    });
    const back = decodeProtobufObject(decodeEnvelope(encodeProtobufObject(object)));
    expect(back.spec).toEqual(object.spec);
    // The status is a Go value: its value fields come back zero, its nil lists (null in Go's JSON) left out.
    expect(back.status).toEqual({ acceptedNames: { plural: '', kind: '' } });
  });

  it('refuses values of the wrong form with the path of the field', () => {
    expect(envelopeError(() => encodeProtobufObject(crd({ type: 'object', additionalProperties: 'yes' }))).message).toBe(
      'spec.versions[0].schema.openAPIV3Schema.additionalProperties: expected a boolean or a schema',
    );
    expect(envelopeError(() => encodeProtobufObject(crd({ type: 'object', items: 5 }))).message).toMatch(
      /openAPIV3Schema\.items: expected a schema or an array of schemas$/,
    );
    expect(envelopeError(() => encodeProtobufObject(crd({ type: 'object', dependencies: { a: 3 } }))).message).toMatch(
      /openAPIV3Schema\.dependencies\.a: expected a schema or an array of strings$/,
    );
    expect(envelopeError(() => encodeProtobufObject(crd({ type: 'object', dependencies: { a: [1] } }))).message).toMatch(
      /dependencies\.a\[0\]: expected a string$/,
    );
  });

  it('refuses a raw value that is not JSON', () => {
    const bytes = Buffer.from(EMPTY.replace('0a00', `0a00${field('42', field('0a', Buffer.from('{nope').toString('hex')))}`), 'hex');
    expect(envelopeError(() => decodeKubernetesMessage(SCHEMA, bytes)).message).toMatch(/default: does not hold JSON$/);
  });

  it('refuses raw JSON nested deeper than the server keeps objects, before parsing it', () => {
    const deep = `${'['.repeat(1064)}${']'.repeat(1064)}`;
    const bytes = Buffer.from(EMPTY.replace('0a00', `0a00${field('42', field('0a', Buffer.from(deep).toString('hex')))}`), 'hex');
    expect(envelopeError(() => decodeKubernetesMessage(SCHEMA, bytes)).message).toBe('default: nests more than 1064 levels deep');
    const fits = `${'['.repeat(1000)}${']'.repeat(1000)}`;
    const shallow = Buffer.from(EMPTY.replace('0a00', `0a00${field('42', field('0a', Buffer.from(fits).toString('hex')))}`), 'hex');
    expect(JSON.stringify(decodeKubernetesMessage(SCHEMA, shallow).default)).toBe(fits);
  });

  it('finds the fields a schema inside a union has no place for', () => {
    const object = crd({ type: 'object', additionalProperties: { type: 'string', typo: 1 }, items: [{ bogus: true }], dependencies: { a: { extra: 1 } } });
    expect(protobufUnknownFields(object)).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.additionalProperties.typo',
      'spec.versions[0].schema.openAPIV3Schema.items[0].bogus',
      'spec.versions[0].schema.openAPIV3Schema.dependencies.a.extra',
    ]);
  });

  it('carries a schema nested as deep as the API server accepts (128 levels under items)', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 1; i < 128; i++) schema = { type: 'array', items: schema };
    const object = crd(schema);
    const back = decodeProtobufObject(decodeEnvelope(encodeProtobufObject(object)));
    expect((back.spec as { versions: unknown[] }).versions).toEqual((object.spec as { versions: unknown[] }).versions);
  });
});
