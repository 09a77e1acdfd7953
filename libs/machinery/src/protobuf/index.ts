export type { Envelope, EnvelopeErrorKind, EnvelopeInput } from './envelope';
export { ENVELOPE_MAGIC, EnvelopeError, PROTOBUF_MEDIA_TYPE, decodeEnvelope, encodeEnvelope, hasEnvelopePrefix } from './envelope';
export type { EnvelopeObject } from './object-envelope';
export { decodeObjectEnvelope, encodeObjectEnvelope } from './object-envelope';
export type { KubernetesMessage } from './kubernetes-codec';
export {
  decodeKubernetesMessage,
  encodeKubernetesList,
  encodeKubernetesMessage,
  formatGoDuration,
  kubernetesKinds,
  kubernetesMessage,
  kubernetesMessageNameFor,
  kubernetesMessageSource,
  kubernetesMessageUnknownFields,
  parseGoDuration,
} from './kubernetes-codec';
export type { ProtobufKind } from './protobuf-object';
export {
  decodeProtobufObject,
  encodeProtobufList,
  encodeProtobufMessage,
  encodeProtobufObject,
  hasProtobufMessage,
  protobufKinds,
  protobufUnknownFields,
} from './protobuf-object';
export type { ProtobufWatchEvent } from './watch-event';
export { decodeWatchEvent, encodeEmbeddedObject, encodeWatchEvent } from './watch-event';
