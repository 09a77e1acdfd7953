import { errorMessage } from '../error-message';
import { Reader, Type, parse } from 'protobufjs';

/** The media type of the binary envelope, the product's counterpart of `application/vnd.kubernetes.protobuf`. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.svc.protobuf';

/** The four bytes before every envelope: Kubernetes' "k8s\0", kept so existing tools recognise the framing. */
export const ENVELOPE_MAGIC: readonly number[] = Object.freeze([0x6b, 0x38, 0x73, 0x00]);

/**
 * The envelope's own schema (spec 1, "Binary envelope"), written as Kubernetes' runtime
 * generated.proto writes it: proto2 with explicit presence, so empty strings are still written
 * and the bytes match what a Kubernetes server emits for the same values.
 */
const ENVELOPE_PROTO = `
syntax = "proto2";
package svc.runtime;

message TypeMeta {
  optional string apiVersion = 1;
  optional string kind = 2;
}

message Unknown {
  optional TypeMeta typeMeta = 1;
  optional bytes raw = 2;
  optional string contentEncoding = 3;
  optional string contentType = 4;
}
`;

const unknownType: Type = parse(ENVELOPE_PROTO, { keepCase: true }).root.lookupType('svc.runtime.Unknown');

/**
 * One envelope. `raw` holds the object itself: its JSON when `contentType` is `application/json`,
 * its Kubernetes protobuf message when `contentType` is empty (see protobuf-object.ts for the kinds
 * understood). An empty `contentEncoding` means `raw` is not compressed.
 */
export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

export interface EnvelopeInput {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding?: string;
  contentType?: string;
}

/** What the API answers for an envelope error: a malformed body, or a well-formed one it cannot read. */
export type EnvelopeErrorKind = 'BadRequest' | 'UnsupportedMediaType';

/**
 * A body that is not a well-formed envelope (`BadRequest`), or whose payload is of a kind or type
 * this product has no decoder for (`UnsupportedMediaType`).
 */
export class EnvelopeError extends Error {
  override readonly name = 'EnvelopeError';

  constructor(
    message: string,
    readonly kind: EnvelopeErrorKind = 'BadRequest',
  ) {
    super(message);
  }
}

function varintSize(value: number): number {
  let size = 1;
  for (let v = value >>> 7; v > 0; v >>>= 7) size++;
  return size;
}

function writeVarint(out: Buffer, at: number, value: number): number {
  let v = value;
  while (v > 0x7f) {
    out[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[at++] = v;
  return at;
}

/**
 * The envelope's bytes, written directly (every answer and watch event of a protobuf client makes
 * one): the prefix, then fields 1 to 4 in order, each written even when empty, as proto2's explicit
 * presence and Kubernetes' marshaller write them.
 */
export function encodeEnvelope(input: EnvelopeInput): Uint8Array {
  const apiVersion = Buffer.from(input.apiVersion, 'utf8');
  const kind = Buffer.from(input.kind, 'utf8');
  const encoding = Buffer.from(input.contentEncoding ?? '', 'utf8');
  const type = Buffer.from(input.contentType ?? '', 'utf8');
  const typeMetaSize = 1 + varintSize(apiVersion.length) + apiVersion.length + 1 + varintSize(kind.length) + kind.length;
  const size =
    ENVELOPE_MAGIC.length +
    1 +
    varintSize(typeMetaSize) +
    typeMetaSize +
    1 +
    varintSize(input.raw.length) +
    input.raw.length +
    1 +
    varintSize(encoding.length) +
    encoding.length +
    1 +
    varintSize(type.length) +
    type.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const byte of ENVELOPE_MAGIC) out[at++] = byte;
  const field = (tag: number, bytes: Uint8Array): void => {
    out[at++] = tag;
    at = writeVarint(out, at, bytes.length);
    out.set(bytes, at);
    at += bytes.length;
  };
  out[at++] = 0x0a;
  at = writeVarint(out, at, typeMetaSize);
  field(0x0a, apiVersion);
  field(0x12, kind);
  field(0x12, input.raw);
  field(0x1a, encoding);
  field(0x22, type);
  return out;
}

/** True when `bytes` starts with the envelope's magic prefix. */
export function hasEnvelopePrefix(bytes: Uint8Array): boolean {
  return bytes.length >= ENVELOPE_MAGIC.length && ENVELOPE_MAGIC.every((byte, index) => bytes[index] === byte);
}

export function decodeEnvelope(bytes: Uint8Array): Envelope {
  if (!hasEnvelopePrefix(bytes)) {
    throw new EnvelopeError(`the body is not a ${PROTOBUF_MEDIA_TYPE} envelope: it does not start with the 4-byte prefix 6b 38 73 00`);
  }
  let decoded: Record<string, unknown>;
  try {
    decoded = unknownType.decode(Reader.create(bytes.subarray(ENVELOPE_MAGIC.length)));
  } catch (error) {
    const detail = errorMessage(error);
    throw new EnvelopeError(`the ${PROTOBUF_MEDIA_TYPE} envelope is malformed: ${detail}`);
  }
  const typeMeta = (decoded.typeMeta ?? {}) as Record<string, unknown>;
  const raw = decoded.raw;
  return {
    apiVersion: stringOf(typeMeta.apiVersion),
    kind: stringOf(typeMeta.kind),
    // A copy, so the result does not pin the whole request buffer.
    raw: raw instanceof Uint8Array ? new Uint8Array(raw) : new Uint8Array(0),
    contentEncoding: stringOf(decoded.contentEncoding),
    contentType: stringOf(decoded.contentType),
  };
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
