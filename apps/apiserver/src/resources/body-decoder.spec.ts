import { encodeEnvelope, encodeObjectEnvelope, isStatusError } from '@svc/machinery';
import { decodeObjectBody, decodeYamlBody } from './body-decoder';

function statusOf(fn: () => unknown): { code?: number; reason?: string; message?: string } {
  try {
    fn();
  } catch (error) {
    if (isStatusError(error)) return error.status;
    throw error;
  }
  throw new Error('expected a Status error');
}

describe('decodeObjectBody', () => {
  it('decodes JSON, also without a content type, and reports repeated keys', () => {
    const body = Buffer.from('{"kind":"ConfigMap","data":{"a":"1"},"data":{"b":"2"}}');
    expect(decodeObjectBody(body, 'application/json; charset=utf-8')).toEqual({ value: { kind: 'ConfigMap', data: { b: '2' } }, duplicateFields: ['data'] });
    expect(decodeObjectBody(Buffer.from('{"a":1}'), undefined).value).toEqual({ a: 1 });
  });

  it('decodes YAML with repeated keys reported by path', () => {
    const yaml = 'kind: ConfigMap\nmetadata:\n  name: a\n  name: b\nitems:\n- x: 1\n  x: 2\n';
    expect(decodeObjectBody(Buffer.from(yaml), 'application/yaml')).toEqual({
      value: { kind: 'ConfigMap', metadata: { name: 'b' }, items: [{ x: 2 }] },
      duplicateFields: ['metadata.name', 'items[0].x'],
    });
  });

  it('decodes the protobuf envelope under both media type names', () => {
    const bytes = Buffer.from(encodeObjectEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } }));
    for (const type of ['application/vnd.svc.protobuf', 'application/vnd.kubernetes.protobuf']) {
      expect(decodeObjectBody(bytes, type).value).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } });
    }
  });

  it('fills apiVersion and kind from the envelope when the payload has none', () => {
    const bytes = encodeEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: Buffer.from('{"data":{}}'), contentType: 'application/json' });
    expect(decodeObjectBody(Buffer.from(bytes), 'application/vnd.svc.protobuf').value).toEqual({ data: {}, apiVersion: 'v1', kind: 'ConfigMap' });
  });

  it('answers 415 to a protobuf message of a kind it cannot read, and 400 to a malformed one', () => {
    const node = encodeEnvelope({ apiVersion: 'v1', kind: 'Node', raw: Buffer.from([0x0a, 0x00]) });
    expect(statusOf(() => decodeObjectBody(Buffer.from(node), 'application/vnd.kubernetes.protobuf'))).toMatchObject({ code: 415 });
    const cut = encodeEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: Buffer.from([0x0a, 0x05, 0x61]) });
    expect(statusOf(() => decodeObjectBody(Buffer.from(cut), 'application/vnd.kubernetes.protobuf'))).toMatchObject({ code: 400 });
  });

  it('refuses unknown content types with 415 and malformed bodies with 400', () => {
    expect(statusOf(() => decodeObjectBody(Buffer.from('a=b'), 'application/x-www-form-urlencoded'))).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    expect(statusOf(() => decodeObjectBody(Buffer.from('{"a":'), 'application/json'))).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(statusOf(() => decodeObjectBody(Buffer.from('a: [1'), 'application/yaml'))).toMatchObject({ code: 400 });
    expect(statusOf(() => decodeObjectBody(Buffer.from('not an envelope'), 'application/vnd.svc.protobuf'))).toMatchObject({ code: 400 });
    expect(statusOf(() => decodeObjectBody(Buffer.alloc(0), 'application/json'))).toMatchObject({ code: 400, message: 'the request body is empty' });
  });

  it('reads JSON as YAML for apply', () => {
    expect(decodeYamlBody('{"a": 1, "a": 2}')).toEqual({ value: { a: 2 }, duplicateFields: ['a'] });
  });
});
