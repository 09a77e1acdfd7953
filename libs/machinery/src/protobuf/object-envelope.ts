import { errorMessage } from '../error-message';
import { EnvelopeError, decodeEnvelope, encodeEnvelope } from './envelope';
import { decodeProtobufObject } from './protobuf-object';

const JSON_CONTENT_TYPE = 'application/json';

/** An API object as the envelope helpers see it: a JSON object whose apiVersion and kind name it. */
export type EnvelopeObject = Record<string, unknown>;

/** Wraps an API object in an envelope, its JSON in `raw`, as the API server answers protobuf requests. */
export function encodeObjectEnvelope(object: EnvelopeObject): Uint8Array {
  return encodeEnvelope({
    apiVersion: typeof object.apiVersion === 'string' ? object.apiVersion : '',
    kind: typeof object.kind === 'string' ? object.kind : '',
    raw: new TextEncoder().encode(JSON.stringify(object)),
    contentType: JSON_CONTENT_TYPE,
  });
}

/**
 * Unwraps an API object from an envelope. JSON payloads are read as they are, apiVersion and kind
 * missing from them filled in from the envelope's type meta; protobuf payloads (empty content type)
 * are read for the kinds `protobufKinds()` lists.
 */
export function decodeObjectEnvelope(bytes: Uint8Array): EnvelopeObject {
  const envelope = decodeEnvelope(bytes);
  if (envelope.contentEncoding !== '') {
    throw new EnvelopeError(`envelope content encoding ${JSON.stringify(envelope.contentEncoding)} is not supported`);
  }
  const contentType = envelope.contentType.split(';')[0].trim().toLowerCase();
  if (contentType === '') return decodeProtobufObject(envelope);
  if (contentType !== JSON_CONTENT_TYPE) {
    throw new EnvelopeError(
      `envelope payload of type ${JSON.stringify(envelope.contentType)} is not supported; only ${JSON_CONTENT_TYPE} and protobuf are`,
      'UnsupportedMediaType',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(envelope.raw));
  } catch (error) {
    const detail = errorMessage(error);
    throw new EnvelopeError(`envelope payload is not valid JSON: ${detail}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EnvelopeError('envelope payload is not a JSON object');
  }
  const object = parsed as EnvelopeObject;
  if (object.apiVersion === undefined && envelope.apiVersion !== '') object.apiVersion = envelope.apiVersion;
  if (object.kind === undefined && envelope.kind !== '') object.kind = envelope.kind;
  return object;
}
