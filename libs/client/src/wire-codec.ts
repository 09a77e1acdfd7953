import { decodeObjectEnvelope, EnvelopeError, encodeProtobufObject, protobufKinds, protobufUnknownFields } from '@svc/machinery';
import { JSON_MEDIA_TYPE, KUBERNETES_PROTOBUF_MEDIA_TYPE, SVC_PROTOBUF_MEDIA_TYPE } from './client-config';

/** The Accept of a request that reads protobuf: client-go's, JSON for whatever the server has no message for. */
export const PROTOBUF_ACCEPT = `${KUBERNETES_PROTOBUF_MEDIA_TYPE}, ${JSON_MEDIA_TYPE}`;

let protobufKindKeys: ReadonlySet<string> | undefined;

/**
 * Whether objects of `apiVersion` and `kind` travel as protobuf: the built-in kinds that have a
 * Kubernetes message (under Kubernetes' group names and their `*.svc.io` twins), and meta/v1's
 * kinds (Status, DeleteOptions, ...). A custom resource never does, even one whose kind is called
 * `Status`: only the table's own group versions count.
 */
export function hasProtobufForm(apiVersion: string | undefined, kind: string | undefined): boolean {
  if (!apiVersion || !kind) return false;
  protobufKindKeys ??= new Set(protobufKinds().map((k) => `${k.apiVersion}/${k.kind}`));
  return protobufKindKeys.has(`${apiVersion}/${kind}`);
}

/** Whether a Content-Type names the protobuf envelope (either name, any parameters). */
export function isProtobufMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const semicolon = contentType.indexOf(';');
  const type = (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return type === KUBERNETES_PROTOBUF_MEDIA_TYPE || type === SVC_PROTOBUF_MEDIA_TYPE;
}

/**
 * An object's protobuf body, or undefined when it must go as JSON: its kind has no message, or it
 * carries a field the message has no place for (protobuf would drop it silently where JSON lets the
 * server keep or refuse it), or it does not encode (a value of the wrong type, which the server
 * then names in its answer to the JSON).
 */
export function protobufBody(object: unknown): Buffer | undefined {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined;
  const record = object as Record<string, unknown>;
  if (!hasProtobufForm(record.apiVersion as string | undefined, record.kind as string | undefined)) return undefined;
  try {
    if (protobufUnknownFields(record, 1).length > 0) return undefined;
    return Buffer.from(encodeProtobufObject(record));
  } catch (error) {
    if (error instanceof EnvelopeError) return undefined;
    throw error;
  }
}

/**
 * An answer's object from its bytes and Content-Type: a protobuf envelope decoded into the same
 * JSON shape a JSON answer has (list items get their apiVersion and kind back, which the protobuf
 * list leaves out), anything else parsed as JSON. Throws on a body that does not decode.
 */
export function decodeAnswer(body: Buffer, contentType: string | undefined): unknown {
  if (!isProtobufMediaType(contentType)) return JSON.parse(body.toString('utf8'));
  const object = decodeObjectEnvelope(body);
  const { apiVersion, kind, items } = object;
  if (Array.isArray(items) && typeof kind === 'string' && kind.length > 'List'.length && kind.endsWith('List') && typeof apiVersion === 'string') {
    const itemKind = kind.slice(0, -'List'.length);
    for (const item of items as Array<Record<string, unknown> | null>) {
      if (item === null || typeof item !== 'object') continue;
      item.apiVersion ??= apiVersion;
      item.kind ??= itemKind;
    }
  }
  return object;
}

/** An error answer's text for `statusErrorFromResponse`: a protobuf Status as its JSON, anything else as sent. */
export function errorAnswerText(body: Buffer, contentType: string | undefined): string {
  if (isProtobufMediaType(contentType)) {
    try {
      return JSON.stringify(decodeObjectEnvelope(body));
    } catch {
      // Not a readable envelope: the bytes as text, which the caller quotes as an unexpected answer.
    }
  }
  return body.toString('utf8');
}
