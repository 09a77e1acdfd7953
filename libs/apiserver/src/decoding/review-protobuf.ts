import { decodeEnvelope, EnvelopeError } from '@svc/machinery';
import { parse, Reader, type Type } from 'protobufjs';

/**
 * The protobuf messages of the review kinds (authentication/v1, authorization/v1), with the field
 * numbers of Kubernetes' generated.proto: kubectl sends `auth whoami` and `auth can-i` requests as
 * protobuf. Only reading is needed here; answers are written with the codec of the full message table.
 */
const REVIEW_PROTO = `
syntax = "proto2";
package svc.review;

message ObjectMeta {
  optional string name = 1;
  optional string generateName = 2;
  optional string namespace = 3;
}


message ExtraValue {
  repeated string items = 1;
}

message UserInfo {
  optional string username = 1;
  optional string uid = 2;
  repeated string groups = 3;
  map<string, ExtraValue> extra = 4;
}

message BoundObjectReference {
  optional string kind = 1;
  optional string apiVersion = 2;
  optional string name = 3;
  optional string uid = 4;
}

message TokenRequestSpec {
  repeated string audiences = 1;
  optional int64 expirationSeconds = 4;
  optional BoundObjectReference boundObjectRef = 3;
}

message TokenRequest {
  optional ObjectMeta metadata = 1;
  optional TokenRequestSpec spec = 2;
}

message SelfSubjectReviewStatus {
  optional UserInfo userInfo = 1;
}

message SelfSubjectReview {
  optional ObjectMeta metadata = 1;
  optional SelfSubjectReviewStatus status = 2;
}

message TokenReviewSpec {
  optional string token = 1;
  repeated string audiences = 2;
}

message TokenReviewStatus {
  optional bool authenticated = 1;
  optional UserInfo user = 2;
  optional string error = 3;
  repeated string audiences = 4;
}

message TokenReview {
  optional ObjectMeta metadata = 1;
  optional TokenReviewSpec spec = 2;
  optional TokenReviewStatus status = 3;
}

message ResourceAttributes {
  optional string namespace = 1;
  optional string verb = 2;
  optional string group = 3;
  optional string version = 4;
  optional string resource = 5;
  optional string subresource = 6;
  optional string name = 7;
}

message NonResourceAttributes {
  optional string path = 1;
  optional string verb = 2;
}

message SubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1;
  optional NonResourceAttributes nonResourceAttributes = 2;
  optional string user = 3;
  repeated string groups = 4;
  map<string, ExtraValue> extra = 5;
  optional string uid = 6;
}

message SelfSubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1;
  optional NonResourceAttributes nonResourceAttributes = 2;
}

message SubjectAccessReviewStatus {
  optional bool allowed = 1;
  optional string reason = 2;
  optional string evaluationError = 3;
  optional bool denied = 4;
}

message SubjectAccessReview {
  optional ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message LocalSubjectAccessReview {
  optional ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message SelfSubjectAccessReview {
  optional ObjectMeta metadata = 1;
  optional SelfSubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message SelfSubjectRulesReviewSpec {
  optional string namespace = 1;
}

message ResourceRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
}

message NonResourceRule {
  repeated string verbs = 1;
  repeated string nonResourceURLs = 2;
}

message SubjectRulesReviewStatus {
  repeated ResourceRule resourceRules = 1;
  repeated NonResourceRule nonResourceRules = 2;
  optional bool incomplete = 3;
  optional string evaluationError = 4;
}

message SelfSubjectRulesReview {
  optional ObjectMeta metadata = 1;
  optional SelfSubjectRulesReviewSpec spec = 2;
  optional SubjectRulesReviewStatus status = 3;
}
`;

const root = parse(REVIEW_PROTO, { keepCase: true }).root;
root.resolveAll();

const REVIEW_KINDS = [
  'TokenRequest',
  'SelfSubjectReview',
  'TokenReview',
  'SubjectAccessReview',
  'LocalSubjectAccessReview',
  'SelfSubjectAccessReview',
  'SelfSubjectRulesReview',
];

/** The review object a protobuf envelope carries, as its JSON shape; an EnvelopeError for anything else. */
export function decodeReviewProtobuf(body: Buffer): Record<string, unknown> {
  const envelope = decodeEnvelope(body);
  if (!REVIEW_KINDS.includes(envelope.kind))
    throw new EnvelopeError(`protobuf payloads of kind ${JSON.stringify(envelope.kind)} are not supported here; send application/json`, 'UnsupportedMediaType');
  const type: Type = root.lookupType(`svc.review.${envelope.kind}`);
  let message;
  try {
    message = type.decode(Reader.create(envelope.raw));
  } catch (error) {
    throw new EnvelopeError(`the protobuf ${envelope.kind} in the envelope is malformed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const object = type.toObject(message, { defaults: false, arrays: false, objects: false, longs: Number }) as Record<string, unknown>;
  return { apiVersion: envelope.apiVersion, kind: envelope.kind, ...object };
}
