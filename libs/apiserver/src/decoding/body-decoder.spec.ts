import { encodeEnvelope, encodeObjectEnvelope, isStatusError } from '@svc/machinery';
import { decodeObjectBody, decodeYamlBody } from './body-decoder';

async function statusOf(fn: () => unknown): Promise<{ code?: number; reason?: string; message?: string }> {
  try {
    await fn();
  } catch (error) {
    if (isStatusError(error)) return error.status;
    throw error;
  }
  throw new Error('expected a Status error');
}

describe('decodeObjectBody', () => {
  it('decodes JSON, also without a content type, and reports repeated keys', async () => {
    const body = Buffer.from('{"kind":"ConfigMap","data":{"a":"1"},"data":{"b":"2"}}');
    expect(await decodeObjectBody(body, 'application/json; charset=utf-8')).toEqual({
      value: { kind: 'ConfigMap', data: { b: '2' } },
      duplicateFields: ['data'],
    });
    expect((await decodeObjectBody(Buffer.from('{"a":1}'), undefined)).value).toEqual({ a: 1 });
  });

  it('decodes YAML with repeated keys reported by path', async () => {
    const yaml = 'kind: ConfigMap\nmetadata:\n  name: a\n  name: b\nitems:\n- x: 1\n  x: 2\n';
    expect(await decodeObjectBody(Buffer.from(yaml), 'application/yaml')).toEqual({
      value: { kind: 'ConfigMap', metadata: { name: 'b' }, items: [{ x: 2 }] },
      duplicateFields: ['metadata.name', 'items[0].x'],
    });
  });

  it('decodes the protobuf envelope under both media type names', async () => {
    const bytes = Buffer.from(encodeObjectEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } }));
    for (const type of ['application/vnd.svc.protobuf', 'application/vnd.kubernetes.protobuf']) {
      expect((await decodeObjectBody(bytes, type)).value).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } });
    }
  });

  it('fills apiVersion and kind from the envelope when the payload has none', async () => {
    const bytes = encodeEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: Buffer.from('{"data":{}}'), contentType: 'application/json' });
    expect((await decodeObjectBody(Buffer.from(bytes), 'application/vnd.svc.protobuf')).value).toEqual({ data: {}, apiVersion: 'v1', kind: 'ConfigMap' });
  });

  it('answers 415 to a protobuf message of a kind it cannot read, and 400 to a malformed one', async () => {
    const widget = encodeEnvelope({ apiVersion: 'example.com/v1', kind: 'Widget', raw: Buffer.from([0x0a, 0x00]) });
    expect(await statusOf(() => decodeObjectBody(Buffer.from(widget), 'application/vnd.kubernetes.protobuf'))).toMatchObject({ code: 415 });
    const cut = encodeEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: Buffer.from([0x0a, 0x05, 0x61]) });
    expect(await statusOf(() => decodeObjectBody(Buffer.from(cut), 'application/vnd.kubernetes.protobuf'))).toMatchObject({ code: 400 });
  });

  it('refuses unknown content types with 415 and malformed bodies with 400', async () => {
    expect(await statusOf(() => decodeObjectBody(Buffer.from('a=b'), 'application/x-www-form-urlencoded'))).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
    });
    expect(await statusOf(() => decodeObjectBody(Buffer.from('{"a":'), 'application/json'))).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(await statusOf(() => decodeObjectBody(Buffer.from('a: [1'), 'application/yaml'))).toMatchObject({ code: 400 });
    expect(await statusOf(() => decodeObjectBody(Buffer.from('not an envelope'), 'application/vnd.svc.protobuf'))).toMatchObject({ code: 400 });
    expect(await statusOf(() => decodeObjectBody(Buffer.alloc(0), 'application/json'))).toMatchObject({ code: 400, message: 'the request body is empty' });
  });

  it('reads JSON as YAML for apply', async () => {
    expect(await decodeYamlBody('{"a": 1, "a": 2}')).toEqual({ value: { a: 2 }, duplicateFields: ['a'] });
  });

  it('replaces lone surrogates in JSON, YAML and keys with U+FFFD', async () => {
    expect((await decodeObjectBody(Buffer.from('{"a":"x\\ud800","\\udfff":["\\uD834"]}'), 'application/json')).value).toEqual({
      a: 'x\uFFFD',
      '\uFFFD': ['\uFFFD'],
    });
    expect((await decodeObjectBody(Buffer.from('a: "\\ud800"\nb: "\\U0000DC00"\n'), 'application/yaml')).value).toEqual({ a: '\uFFFD', b: '\uFFFD' });
    // A well-formed pair stays.
    expect((await decodeObjectBody(Buffer.from('{"a":"\\ud83d\\ude00"}'), 'application/json')).value).toEqual({ a: '\u{1F600}' });
  });

  it('refuses bodies nested past the limit before parsing them, in JSON and in YAML', async () => {
    const deep = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
    expect(await statusOf(() => decodeObjectBody(Buffer.from(`{"a":${deep(1000)}}`), 'application/json'))).toMatchObject({ code: 400 });
    expect((await decodeObjectBody(Buffer.from(`{"a":${deep(999)}}`), 'application/json')).value).toBeDefined();
    expect(await statusOf(() => decodeObjectBody(Buffer.from(`a: ${deep(1000)}`), 'application/yaml'))).toMatchObject({ code: 400 });
    // Decoded on the worker thread: deep flow YAML one level under the limit.
    expect((await decodeObjectBody(Buffer.from(`a: ${deep(999)}`), 'application/yaml')).value).toBeDefined();
  });

  it('refuses a YAML alias bomb and recursive aliases with 400', async () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    }
    expect(await statusOf(() => decodeYamlBody(lines.join('\n')))).toMatchObject({ code: 400, message: expect.stringContaining('excessive aliasing') });
    expect(await statusOf(() => decodeYamlBody('a: &a [*a]'))).toMatchObject({ code: 400 });
    // A few aliases are fine, and each place gets a copy of its own.
    const decoded = await decodeYamlBody('base: &b {x: 1}\none: *b\ntwo: *b\n');
    const value = decoded.value as Record<string, { x: number }>;
    expect(value).toEqual({ base: { x: 1 }, one: { x: 1 }, two: { x: 1 } });
    expect(value.one).not.toBe(value.two);
  });

  it('refuses YAML mapping keys that are not scalars', async () => {
    expect(await statusOf(() => decodeYamlBody('? [a]\n: b\n'))).toMatchObject({ code: 400 });
  });
});
