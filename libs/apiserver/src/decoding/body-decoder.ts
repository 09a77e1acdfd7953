import {
  decodeEnvelope,
  decodeProtobufObject,
  EnvelopeError,
  isStatusError,
  newBadRequest,
  newUnsupportedMediaType,
  type StatusError,
  errorMessage,
} from '@svc/machinery';
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '@svc/machinery';
import { mayEscapeSurrogates, withWellFormedStrings } from '../request/well-formed';
import { findDuplicateJsonKeys } from './duplicate-keys';
import { mediaTypeOf, PROTOBUF_MEDIA_TYPES } from './media-types';
import { decodeYamlText } from './yaml-decoder';
import { YamlValueError, type YamlValue } from './yaml-value';

/** A request body turned into a plain value, with the keys it repeated (field validation reports them). */
export interface DecodedBody {
  value: unknown;
  /** Paths of keys that appeared twice in one object; the value holds the last of them. */
  duplicateFields: string[];
}

/** Content types a create or update body may have, in the order a 415 names them. */
export const OBJECT_BODY_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.svc.protobuf'];

/**
 * Decodes the body of a create or update: JSON (also when no Content-Type is given), YAML, or the
 * protobuf envelope carrying JSON. Any other type is a 415; a body that does not parse is a 400.
 */
export async function decodeObjectBody(body: Buffer, contentType: string | undefined): Promise<DecodedBody> {
  const mediaType = contentType === undefined || contentType.trim() === '' ? 'application/json' : mediaTypeOf(contentType);
  switch (mediaType) {
    case 'application/json':
      return decodeJsonBody(body);
    case 'application/yaml':
      return decodeYamlBody(body);
    default:
      if (PROTOBUF_MEDIA_TYPES.includes(mediaType)) return decodeProtobufBody(body);
      throw newUnsupportedMediaType(OBJECT_BODY_MEDIA_TYPES);
  }
}

export function decodeJsonBody(body: Buffer | string): DecodedBody {
  if (jsonNestingDepth(body) > MAX_NESTING_DEPTH) throw tooDeep();
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.trim() === '') throw emptyBody();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw newBadRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
  if (mayEscapeSurrogates(text)) value = withWellFormedStrings(value);
  return { value, duplicateFields: findDuplicateJsonKeys(text) };
}

/**
 * YAML 1.2; JSON is YAML, so apply bodies of either kind come through here (JSON text takes the
 * faster JSON parser). Nesting is bounded before the parser runs and again after aliases are
 * expanded; a document that aliases expand far beyond its size is refused. Large or deep documents
 * are decoded on a worker thread (see decodeYamlText).
 */
export async function decodeYamlBody(body: Buffer | string): Promise<DecodedBody> {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const start = text.trimStart();
  if (start === '') throw emptyBody();
  if (start.startsWith('{')) {
    try {
      return decodeJsonBody(text);
    } catch (error) {
      // Flow-style YAML (`{a: 1}`) is not JSON; anything else JSON refused is refused here too.
      if (!(isStatusError(error) && error.status.message?.startsWith('the request body is not valid JSON'))) throw error;
    }
  }
  let decoded: YamlValue;
  try {
    decoded = await decodeYamlText(text);
  } catch (error) {
    if (error instanceof YamlValueError) throw newBadRequest(`the request body is not valid YAML: ${error.message}`);
    throw error;
  }
  return { value: withWellFormedStrings(decoded.value), duplicateFields: decoded.duplicateFields };
}

function decodeProtobufBody(body: Buffer): DecodedBody {
  try {
    const envelope = decodeEnvelope(body);
    if (envelope.contentEncoding !== '') throw new EnvelopeError(`content encoding ${JSON.stringify(envelope.contentEncoding)} is not supported`);
    const payloadType = envelope.contentType.split(';')[0].trim().toLowerCase();
    if (payloadType === '' || payloadType === 'application/vnd.kubernetes.protobuf') {
      // A Kubernetes client's own protobuf message, which it sends for built-in kinds.
      // protobufjs reads bytes that encode a lone surrogate as one; the JSON path would give U+FFFD.
      return { value: withWellFormedStrings(decodeProtobufObject(envelope)), duplicateFields: [] };
    }
    if (payloadType !== 'application/json') throw newUnsupportedMediaType(OBJECT_BODY_MEDIA_TYPES);
    const decoded = decodeJsonBody(Buffer.from(envelope.raw));
    const object = decoded.value;
    if (typeof object === 'object' && object !== null && !Array.isArray(object)) {
      const typed = object as Record<string, unknown>;
      if (typed.apiVersion === undefined && envelope.apiVersion !== '') typed.apiVersion = envelope.apiVersion;
      if (typed.kind === undefined && envelope.kind !== '') typed.kind = envelope.kind;
    }
    return decoded;
  } catch (error) {
    if (error instanceof EnvelopeError && error.kind === 'UnsupportedMediaType') throw newUnsupportedMediaType(OBJECT_BODY_MEDIA_TYPES);
    if (error instanceof EnvelopeError) throw newBadRequest(`the request body is not a valid protobuf envelope: ${error.message}`);
    if (isStatusError(error)) throw error;
    // protobufjs reports truncated or malformed messages with plain errors.
    throw newBadRequest(`the request body is not a valid protobuf message: ${errorMessage(error)}`);
  }
}

function tooDeep(): StatusError {
  return newBadRequest(`the request body nests more than ${MAX_NESTING_DEPTH} levels deep`);
}

function emptyBody(): StatusError {
  return newBadRequest('the request body is empty');
}
