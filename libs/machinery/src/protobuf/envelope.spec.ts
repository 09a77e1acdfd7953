import {
  ENVELOPE_MAGIC,
  EnvelopeError,
  PROTOBUF_MEDIA_TYPE,
  decodeEnvelope,
  decodeObjectEnvelope,
  encodeEnvelope,
  encodeObjectEnvelope,
  hasEnvelopePrefix,
} from './index';
import { thrownBy } from '../testing/thrown-by';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

const envelopeError = (run: () => unknown): EnvelopeError => thrownBy(run, EnvelopeError);

describe('binary envelope', () => {
  it('names its media type and the Kubernetes prefix', () => {
    expect(PROTOBUF_MEDIA_TYPE).toBe('application/vnd.svc.protobuf');
    expect(ENVELOPE_MAGIC).toEqual([0x6b, 0x38, 0x73, 0x00]);
  });

  it('writes the exact bytes of a small message: prefix, then fields 1 to 4', () => {
    const bytes = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw: text('{}'), contentType: 'application/json' });
    const expected = [
      '6b387300', // magic prefix "k8s\0"
      '0a09', // field 1 typeMeta, length 9
      '0a027631', // TypeMeta field 1 apiVersion "v1"
      '1203506f64', // TypeMeta field 2 kind "Pod"
      '12027b7d', // field 2 raw "{}"
      '1a00', // field 3 contentEncoding "" (written, as Kubernetes writes it)
      '2210' + hex(text('application/json')), // field 4 contentType
    ].join('');
    expect(hex(bytes)).toBe(expected);
    expect(bytes).toBeInstanceOf(Uint8Array);
  });

  it('round-trips every field', () => {
    const raw = new Uint8Array([0, 1, 2, 250, 255]);
    const decoded = decodeEnvelope(
      encodeEnvelope({ apiVersion: 'apps/v1', kind: 'Deployment', raw, contentEncoding: 'gzip', contentType: 'application/json' }),
    );
    expect(decoded).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', raw, contentEncoding: 'gzip', contentType: 'application/json' });
  });

  it('reads absent fields as empty values', () => {
    const decoded = decodeEnvelope(new Uint8Array([...ENVELOPE_MAGIC]));
    expect(decoded).toEqual({ apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' });
  });

  it('ignores fields it does not know, as protobuf readers do', () => {
    const bytes = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw: text('{}') });
    const withExtra = new Uint8Array([...bytes, 0x2a, 0x01, 0x78]); // field 5, length-delimited "x"
    expect(decodeEnvelope(withExtra).kind).toBe('Pod');
  });

  it('refuses bytes without the prefix', () => {
    const body = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw: text('{}') }).subarray(4);
    expect(hasEnvelopePrefix(body)).toBe(false);
    const error = envelopeError(() => decodeEnvelope(body));
    expect(error.kind).toBe('BadRequest');
    expect(error.message).toContain('prefix');
    expect(() => decodeEnvelope(text('{"kind":"Pod"}'))).toThrow(EnvelopeError);
    expect(() => decodeEnvelope(new Uint8Array([0x6b, 0x38]))).toThrow(EnvelopeError);
  });

  it('refuses a truncated message', () => {
    const bytes = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw: text('{"a":1}') });
    expect(() => decodeEnvelope(bytes.subarray(0, bytes.length - 3))).toThrow(EnvelopeError);
  });

  it('does not share memory with the input', () => {
    const bytes = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw: text('{}') });
    const decoded = decodeEnvelope(bytes);
    bytes.fill(0);
    expect(new TextDecoder().decode(decoded.raw)).toBe('{}');
  });
});

describe('object envelope', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'a' }] } };

  it('carries the object as JSON and round-trips it', () => {
    const bytes = encodeObjectEnvelope(pod);
    const envelope = decodeEnvelope(bytes);
    expect(envelope).toMatchObject({ apiVersion: 'v1', kind: 'Pod', contentType: 'application/json', contentEncoding: '' });
    expect(JSON.parse(new TextDecoder().decode(envelope.raw))).toEqual(pod);
    expect(decodeObjectEnvelope(bytes)).toEqual(pod);
  });

  it('fills apiVersion and kind from the type meta when the payload lacks them', () => {
    const bytes = encodeEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: text('{"data":{"a":"b"}}'), contentType: 'application/json' });
    expect(decodeObjectEnvelope(bytes)).toEqual({ data: { a: 'b' }, apiVersion: 'v1', kind: 'ConfigMap' });
  });

  it('refuses payloads it cannot read', () => {
    const protobufPayload = encodeEnvelope({ apiVersion: 'example.com/v1', kind: 'Widget', raw: new Uint8Array([0x0a, 0x00]) });
    const unsupported = envelopeError(() => decodeObjectEnvelope(protobufPayload));
    expect(unsupported.message).toContain('protobuf');
    expect(unsupported.kind).toBe('UnsupportedMediaType');
    const gzip = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw: text('{}'), contentType: 'application/json', contentEncoding: 'gzip' });
    expect(() => decodeObjectEnvelope(gzip)).toThrow(EnvelopeError);
    const notJson = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw: text('{'), contentType: 'application/json' });
    expect(() => decodeObjectEnvelope(notJson)).toThrow(EnvelopeError);
    const array = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw: text('[]'), contentType: 'application/json' });
    expect(() => decodeObjectEnvelope(array)).toThrow(EnvelopeError);
  });
});
