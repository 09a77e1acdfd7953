import { Writer } from 'protobufjs';
import { EnvelopeError } from './envelope';
import { decodeKubernetesMessage } from './kubernetes-codec';
import { encodeObjectEnvelope } from './object-envelope';
import { encodeProtobufObject, hasProtobufMessage } from './protobuf-object';

const WATCH_EVENT_MESSAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent';

/** One event of a watch stream as its protobuf frame carries it. */
export interface ProtobufWatchEvent {
  type: string;
  object: Record<string, unknown>;
}

/**
 * The envelope of a watch event's object: the kind's own message, or its JSON for a kind with none
 * (a custom resource), as Kubernetes embeds an object it cannot write as protobuf.
 */
export function encodeEmbeddedObject(object: Record<string, unknown>): Uint8Array {
  const { apiVersion, kind } = object;
  return typeof apiVersion === 'string' && typeof kind === 'string' && hasProtobufMessage(apiVersion, kind)
    ? encodeProtobufObject(object)
    : encodeObjectEnvelope(object);
}

/**
 * A `WatchEvent` message as Kubernetes' protobuf stream serializer writes one: no envelope around
 * the event (the stream's 4-byte length frames it), its object a RawExtension holding the object's
 * own envelope. `embedded` is that envelope when the caller has it already (shared by many watchers).
 */
export function encodeWatchEvent(type: string, object: Record<string, unknown>, embedded: Uint8Array = encodeEmbeddedObject(object)): Uint8Array {
  const w = Writer.create();
  w.uint32((1 << 3) | 2).string(type);
  // object (field 2) is a RawExtension whose raw (field 1) is the envelope's bytes.
  w.uint32((2 << 3) | 2).fork();
  w.uint32((1 << 3) | 2).bytes(embedded);
  w.ldelim();
  return w.finish();
}

/** Reads one `WatchEvent` message (a frame's payload, without its length) into `{type, object}`. */
export function decodeWatchEvent(bytes: Uint8Array): ProtobufWatchEvent {
  const event = decodeKubernetesMessage(WATCH_EVENT_MESSAGE, bytes);
  const object = event.object;
  if (typeof event.type !== 'string' || event.type === '' || typeof object !== 'object' || object === null || Array.isArray(object)) {
    throw new EnvelopeError('a watch event must carry a type and an object');
  }
  return { type: event.type, object: object as Record<string, unknown> };
}
