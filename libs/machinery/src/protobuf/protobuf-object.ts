import { errorMessage } from '../error-message';
import { specApiVersion } from '../group-names';
import { Reader, type Type } from 'protobufjs';
import { EnvelopeError, encodeEnvelope, type Envelope } from './envelope';
import { KUBERNETES_PACKAGE, kubernetesRoot } from './kubernetes-schema';
import { messageFromJson, messageToJson } from './message-json';

/** A kind whose Kubernetes protobuf message this product reads and writes. */
export interface ProtobufKind {
  apiVersion: string;
  kind: string;
}

// apiVersion/kind -> message name in the schema. Status is meta/v1's, served under every group version;
// the core group's is the one clients send.
const KINDS: ReadonlyArray<ProtobufKind & { message: string }> = [
  { apiVersion: 'v1', kind: 'ConfigMap', message: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Namespace', message: 'Namespace' },
  { apiVersion: 'v1', kind: 'Pod', message: 'Pod' },
  { apiVersion: 'v1', kind: 'Secret', message: 'Secret' },
  { apiVersion: 'v1', kind: 'Service', message: 'Service' },
  { apiVersion: 'v1', kind: 'ServiceAccount', message: 'ServiceAccount' },
  { apiVersion: 'v1', kind: 'Status', message: 'Status' },
  { apiVersion: 'apps/v1', kind: 'Deployment', message: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet', message: 'ReplicaSet' },
  { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'Role', message: 'Role' },
  { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'ClusterRole', message: 'ClusterRole' },
  { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'RoleBinding', message: 'RoleBinding' },
  { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'ClusterRoleBinding', message: 'ClusterRoleBinding' },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', message: 'PodDisruptionBudget' },
  { apiVersion: 'policy/v1', kind: 'Eviction', message: 'Eviction' },
  // A delete's body; meta/v1's, which clients send under the group version of the resource deleted.
  { apiVersion: 'v1', kind: 'DeleteOptions', message: 'DeleteOptions' },
];

/** Kinds every group version carries (meta/v1's options): found by kind whatever the apiVersion says. */
const KINDS_OF_EVERY_VERSION: ReadonlySet<string> = new Set(['DeleteOptions']);

const messageTypes = new Map<string, Type>(
  KINDS.map((entry) => [keyOf(entry.apiVersion, entry.kind), kubernetesRoot.lookupType(`${KUBERNETES_PACKAGE}.${entry.message}`)]),
);

/** Either name of a group finds its messages (`rbac.authorization.k8s.io/v1` is what kubectl sends). */
function keyOf(apiVersion: string, kind: string): string {
  return `${specApiVersion(apiVersion)}/${kind}`;
}

function messageTypeFor(apiVersion: string, kind: string): Type {
  const type = messageTypes.get(keyOf(KINDS_OF_EVERY_VERSION.has(kind) ? 'v1' : apiVersion, kind));
  if (!type) {
    throw new EnvelopeError(
      `protobuf payloads of kind ${JSON.stringify(kind)} in ${JSON.stringify(apiVersion)} are not supported; send application/json`,
      'UnsupportedMediaType',
    );
  }
  return type;
}

/**
 * The protobuf message an object of a supported kind is read and written with (its fields, their
 * numbers and nested messages, by reflection); throws an UnsupportedMediaType EnvelopeError for any other kind.
 */
export function protobufMessageType(apiVersion: string, kind: string): Type {
  return messageTypeFor(apiVersion, kind);
}

/** The kinds `decodeProtobufObject` and `encodeProtobufObject` understand. */
export function protobufKinds(): ReadonlyArray<ProtobufKind> {
  return KINDS.map(({ apiVersion, kind }) => ({ apiVersion, kind }));
}

/**
 * The JSON object an envelope with a protobuf payload carries, in Kubernetes' JSON shape: zero-valued
 * optional fields left out, times as RFC 3339, bytes as base64, int-or-string as a number or a string.
 * The envelope's type meta picks the message and supplies apiVersion and kind.
 */
export function decodeProtobufObject(envelope: Envelope): Record<string, unknown> {
  const type = messageTypeFor(envelope.apiVersion, envelope.kind);
  let message: Record<string, unknown>;
  try {
    message = type.decode(Reader.create(envelope.raw));
  } catch (error) {
    const detail = errorMessage(error);
    throw new EnvelopeError(`the protobuf ${envelope.kind} in the envelope is malformed: ${detail}`);
  }
  return { apiVersion: envelope.apiVersion, kind: envelope.kind, ...messageToJson(type, message) };
}

/**
 * The full envelope (prefix included) of an object of a known kind, its payload in protobuf, written
 * as a Kubernetes client writes it. Fields the kind's message does not declare are not carried.
 */
export function encodeProtobufObject(object: Record<string, unknown>): Uint8Array {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const type = messageTypeFor(apiVersion, kind);
  const raw = type.encode(messageFromJson(type, object)).finish();
  return encodeEnvelope({ apiVersion, kind, raw });
}
