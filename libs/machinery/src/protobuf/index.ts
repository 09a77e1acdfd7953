export type { Envelope, EnvelopeErrorKind, EnvelopeInput } from './envelope';
export { ENVELOPE_MAGIC, EnvelopeError, PROTOBUF_MEDIA_TYPE, decodeEnvelope, encodeEnvelope, hasEnvelopePrefix } from './envelope';
export type { EnvelopeObject } from './object-envelope';
export { decodeObjectEnvelope, encodeObjectEnvelope } from './object-envelope';
export type { ProtobufKind } from './protobuf-object';
export { decodeProtobufObject, encodeProtobufObject, protobufKinds, protobufMessageType } from './protobuf-object';
