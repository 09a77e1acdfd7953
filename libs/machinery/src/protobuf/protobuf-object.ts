import { EnvelopeError, encodeEnvelope, type Envelope } from './envelope';
import {
  decodeKubernetesMessage,
  encodeKubernetesList,
  encodeKubernetesMessage,
  kubernetesKinds,
  kubernetesMessageNameFor,
  kubernetesMessageUnknownFields,
} from './kubernetes-codec';
import { kubernetesGroupName } from '../group-names';

/** A kind whose Kubernetes protobuf message this product reads and writes. */
export interface ProtobufKind {
  apiVersion: string;
  kind: string;
}

function messageNameFor(apiVersion: string, kind: string): string {
  const name = kubernetesMessageNameFor(apiVersion, kind);
  if (!name) {
    throw new EnvelopeError(
      `protobuf payloads of kind ${JSON.stringify(kind)} in ${JSON.stringify(apiVersion)} are not supported; send application/json`,
      'UnsupportedMediaType',
    );
  }
  return name;
}

/** Whether objects of `apiVersion` and `kind` have a Kubernetes protobuf message (built-in kinds do, custom resources do not). */
export function hasProtobufMessage(apiVersion: string, kind: string): boolean {
  return kubernetesMessageNameFor(apiVersion, kind) !== undefined;
}

/**
 * The kinds `decodeProtobufObject` and `encodeProtobufObject` understand, under Kubernetes' group
 * names and, for groups that have one, their `*.svc.io` twins.
 */
export function protobufKinds(): ReadonlyArray<ProtobufKind> {
  const out: ProtobufKind[] = [];
  for (const { apiVersion, kind } of kubernetesKinds()) {
    out.push({ apiVersion, kind });
    const slash = apiVersion.indexOf('/');
    if (slash < 0) continue;
    const twin = specTwin(apiVersion.slice(0, slash));
    if (twin) out.push({ apiVersion: `${twin}${apiVersion.slice(slash)}`, kind });
  }
  return out;
}

function specTwin(group: string): string | undefined {
  const suffix = '.k8s.io';
  if (!group.endsWith(suffix)) return undefined;
  const twin = `${group.slice(0, -suffix.length)}.svc.io`;
  return kubernetesGroupName(twin) === group ? twin : undefined;
}

/**
 * The JSON object an envelope with a protobuf payload carries, in Kubernetes' JSON shape: zero-valued
 * `omitempty` fields left out, times as RFC 3339, bytes as base64, int-or-string as a number or a string.
 * The envelope's type meta picks the message and supplies apiVersion and kind.
 */
export function decodeProtobufObject(envelope: Envelope): Record<string, unknown> {
  const name = messageNameFor(envelope.apiVersion, envelope.kind);
  return { apiVersion: envelope.apiVersion, kind: envelope.kind, ...decodeKubernetesMessage(name, envelope.raw) };
}

/** The protobuf message (no envelope) of an object of a known kind, as a Kubernetes client or server writes it. */
export function encodeProtobufMessage(object: Record<string, unknown>): Uint8Array {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  return encodeKubernetesMessage(messageNameFor(apiVersion, kind), object);
}

/**
 * The full envelope (prefix included) of an object of a known kind, its payload in protobuf, written
 * as a Kubernetes client writes it. Fields the kind's message does not declare are not carried.
 */
export function encodeProtobufObject(object: Record<string, unknown>): Uint8Array {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  return encodeEnvelope({ apiVersion, kind, raw: encodeProtobufMessage(object) });
}

const TYPE_META_KEYS: ReadonlySet<string> = new Set(['apiVersion', 'kind']);

/**
 * The paths of the fields of an object of a known kind that its message has no place for (up to
 * `limit`): what `encodeProtobufObject` would leave out. A writer that must not lose them sends JSON.
 */
export function protobufUnknownFields(object: Record<string, unknown>, limit = 10): string[] {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  return kubernetesMessageUnknownFields(messageNameFor(apiVersion, kind), object, limit, TYPE_META_KEYS);
}

/**
 * The envelope of a list of a known kind (`PodList`), each item's message the one `itemMessage`
 * hands back (bytes it keeps for an item many answers carry) or, when it gives none, encoded here.
 */
export function encodeProtobufList(list: Record<string, unknown>, itemMessage: (item: Record<string, unknown>) => Uint8Array | undefined): Uint8Array {
  const apiVersion = typeof list.apiVersion === 'string' ? list.apiVersion : '';
  const kind = typeof list.kind === 'string' ? list.kind : '';
  return encodeEnvelope({ apiVersion, kind, raw: encodeKubernetesList(messageNameFor(apiVersion, kind), list, itemMessage) });
}
