import {
  encodeEmbeddedObject,
  encodeEnvelope,
  encodeObjectEnvelope,
  encodeProtobufList,
  encodeProtobufMessage,
  encodeProtobufObject,
  encodeWatchEvent,
  kubernetesMessageNameFor,
  type Status,
} from '@svc/machinery';
import { stringify as toYaml } from 'yaml';
import { chunkedFrame, jsonLine, type WatchFrame } from './encoded-json';
import type { OutputFormat } from './negotiation';
import type { ResponseWriter } from '../../serving/response-writer';

/** The bytes of one response body in the negotiated encoding. */
export function encodeBody(body: unknown, format: OutputFormat): Buffer | string {
  switch (format.encoding) {
    case 'protobuf':
      return Buffer.from(encodeObjectEnvelope(body as Record<string, unknown>));
    case 'kubernetes-protobuf': {
      const object = body as Record<string, unknown>;
      return Buffer.from(Array.isArray(object.items) ? kubernetesListEnvelope(object) : kubernetesEnvelope(object));
    }
    case 'yaml':
      return toYaml(body);
    default:
      // Shared cache objects carry their bytes already.
      return format.pretty ? `${JSON.stringify(body, null, 2)}\n` : jsonLine(body);
  }
}

/** Writes a whole response: status code, Content-Type, warnings and the encoded body. */
export function writeBody(res: ResponseWriter, code: number, body: unknown, format: OutputFormat, warnings: readonly string[] = []): void {
  if (!res.open) return;
  // A body of a kind Kubernetes has no message for goes out as JSON, which every protobuf client also reads.
  const shown =
    format.encoding === 'kubernetes-protobuf' && !hasKubernetesMessage(body)
      ? { ...format, encoding: 'json' as const, contentType: 'application/json' }
      : format;
  writeEncoded(res, code, encodeBody(body, shown), shown, warnings);
}

function hasKubernetesMessage(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { apiVersion, kind } = body as Record<string, unknown>;
  return typeof apiVersion === 'string' && typeof kind === 'string' && kubernetesMessageNameFor(apiVersion, kind) !== undefined;
}

/** Writes a whole response whose body is already encoded in `format`. */
export function writeEncoded(res: ResponseWriter, code: number, encoded: Buffer | string, format: OutputFormat, warnings: readonly string[] = []): void {
  if (!res.open) return;
  res.addWarnings(warnings);
  res.end(code, encoded, { 'Content-Type': format.encoding === 'json' && format.view === undefined ? 'application/json' : format.contentType });
}

/** Writes a Status error in the negotiated encoding (JSON for views), with its retry hint as Retry-After. */
export function writeStatusBody(res: ResponseWriter, status: Status, format: OutputFormat): void {
  if (!res.open) {
    // Half a response cannot become an error any more; cutting it is the only honest signal.
    if (!res.timedOut && !res.raw.writableEnded) res.raw.destroy();
    return;
  }
  const retryAfter = status.details?.retryAfterSeconds;
  if (retryAfter !== undefined && retryAfter > 0) res.setHeader('Retry-After', String(retryAfter));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const plain: OutputFormat = format.view === undefined ? format : { ...format, view: undefined, contentType: 'application/json' };
  writeBody(res, status.code ?? 500, status, plain);
}

// The message and the envelope of a shared (frozen) cache object, made once for every watcher,
// read and list that carries it, as its JSON is (encoded-json.ts).
const kubernetesMessageOf = new WeakMap<object, Uint8Array>();
const kubernetesEnvelopeOf = new WeakMap<object, Uint8Array>();

/** An object's own message (no envelope), kept for a shared object. */
function kubernetesMessage(object: Record<string, unknown>): Uint8Array {
  if (!Object.isFrozen(object)) return encodeProtobufMessage(object);
  let message = kubernetesMessageOf.get(object);
  if (message === undefined) {
    message = encodeProtobufMessage(object);
    kubernetesMessageOf.set(object, message);
  }
  return message;
}

/** An object's envelope in Kubernetes' protobuf (its JSON inside for a kind with no message). */
function kubernetesEnvelope(object: Record<string, unknown>): Uint8Array {
  if (!hasKubernetesMessage(object)) return encodeEmbeddedObject(object);
  if (!Object.isFrozen(object)) return encodeProtobufObject(object);
  let envelope = kubernetesEnvelopeOf.get(object);
  if (envelope === undefined) {
    envelope = encodeEnvelope({ apiVersion: object.apiVersion as string, kind: object.kind as string, raw: kubernetesMessage(object) });
    kubernetesEnvelopeOf.set(object, envelope);
  }
  return envelope;
}

/** A list's envelope, its shared items' messages those kept for them. */
function kubernetesListEnvelope(list: Record<string, unknown>): Uint8Array {
  return encodeProtobufList(list, (item) => (Object.isFrozen(item) && hasKubernetesMessage(item) ? kubernetesMessage(item) : undefined));
}

/**
 * One frame of a Kubernetes protobuf watch stream, as its stream serializer writes it: a 4-byte
 * big-endian length, then the WatchEvent message itself (no envelope), whose object holds the
 * object's own envelope (prefix, type meta, its message).
 */
export function kubernetesWatchFrame(event: { type: string; object: unknown }): Buffer {
  const object = event.object as Record<string, unknown>;
  const body = encodeWatchEvent(event.type, object, kubernetesEnvelope(object));
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  frame.set(body, 4);
  return frame;
}

const kubernetesWatchFramesOf = new WeakMap<object, Map<string, WatchFrame>>();

/**
 * The protobuf frame of `{type, object}` with its chunk framing, as the JSON stream has one
 * (encoded-json.ts): the same bytes for every watcher of a shared object, written straight to
 * their sockets in the batches the JSON stream is written in.
 */
export function kubernetesWatchChunk(type: string, object: unknown): WatchFrame {
  if (typeof object !== 'object' || object === null || !Object.isFrozen(object)) return chunkedFrame(kubernetesWatchFrame({ type, object }));
  let frames = kubernetesWatchFramesOf.get(object);
  if (frames === undefined) kubernetesWatchFramesOf.set(object, (frames = new Map<string, WatchFrame>()));
  let frame = frames.get(type);
  if (frame === undefined) frames.set(type, (frame = chunkedFrame(kubernetesWatchFrame({ type, object }))));
  return frame;
}

/** One frame of a protobuf watch stream: a 4-byte big-endian length, then an envelope of the event. */
export function protobufWatchFrame(event: { type: string; object: unknown }): Buffer {
  const envelope = encodeEnvelope({
    apiVersion: 'meta.svc.io/v1',
    kind: 'WatchEvent',
    raw: Buffer.from(JSON.stringify(event)),
    contentType: 'application/json',
  });
  const frame = Buffer.allocUnsafe(4 + envelope.length);
  frame.writeUInt32BE(envelope.length, 0);
  frame.set(envelope, 4);
  return frame;
}
