import { decodeEnvelope, decodeProtobufObject, EnvelopeError, isStatusError, newBadRequest, newUnsupportedMediaType, type StatusError } from '@svc/machinery';
import { isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import { findDuplicateJsonKeys } from './duplicate-keys';
import { mediaTypeOf, PROTOBUF_MEDIA_TYPES } from './media-types';

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
export function decodeObjectBody(body: Buffer, contentType: string | undefined): DecodedBody {
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
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.trim() === '') throw emptyBody();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw newBadRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
  return { value, duplicateFields: findDuplicateJsonKeys(text) };
}

/** YAML 1.2; JSON is YAML, so apply bodies of either kind come through here. */
export function decodeYamlBody(body: Buffer | string): DecodedBody {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.trim() === '') throw emptyBody();
  const document = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  if (document.errors.length > 0) {
    throw newBadRequest(`the request body is not valid YAML: ${document.errors[0].message.split('\n')[0]}`);
  }
  const duplicateFields: string[] = [];
  collectYamlDuplicates(document.contents as YamlNode | null, '', duplicateFields);
  return { value: document.toJS({ maxAliasCount: 100 }) as unknown, duplicateFields };
}

function decodeProtobufBody(body: Buffer): DecodedBody {
  try {
    const envelope = decodeEnvelope(body);
    if (envelope.contentEncoding !== '') throw new EnvelopeError(`content encoding ${JSON.stringify(envelope.contentEncoding)} is not supported`);
    const payloadType = envelope.contentType.split(';')[0].trim().toLowerCase();
    if (payloadType === '' || payloadType === 'application/vnd.kubernetes.protobuf') {
      // A Kubernetes client's own protobuf message, which it sends for built-in kinds.
      return { value: decodeProtobufObject(envelope), duplicateFields: [] };
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
    throw newBadRequest(`the request body is not a valid protobuf message: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function collectYamlDuplicates(node: YamlNode | null | undefined, path: string, out: string[]): void {
  if (!node) return;
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const keyNode = pair.key;
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      const childPath = path === '' ? key : `${path}.${key}`;
      if (seen.has(key)) out.push(childPath);
      seen.add(key);
      collectYamlDuplicates(pair.value as YamlNode | null, childPath, out);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => collectYamlDuplicates(item as YamlNode | null, `${path}[${index}]`, out));
  }
}

function emptyBody(): StatusError {
  return newBadRequest('the request body is empty');
}
