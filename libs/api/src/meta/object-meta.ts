import { Type } from '@sinclair/typebox';
import type { ObjectMeta } from '@svc/machinery';
import { describeFields, Int64, ListAtomic, ListMap, ListSet, StringMap, Time } from '../schema/builders';
import { ManagedFieldsEntrySchema } from './managed-fields-entry';
import {
  ANNOTATION_KEY_PATTERN,
  DNS1123_LABEL_MAX_LENGTH,
  DNS1123_LABEL_PATTERN,
  LABEL_VALUE_MAX_LENGTH,
  LABEL_VALUE_PATTERN,
  NAME_RULES,
  QUALIFIED_NAME_PATTERN,
  type NameRule,
} from './names';
import { OwnerReferenceSchema } from './owner-reference';

export type { ObjectMeta };

export const LabelsSchema = StringMap(Type.String({ pattern: LABEL_VALUE_PATTERN, maxLength: LABEL_VALUE_MAX_LENGTH }), {
  propertyNames: { pattern: QUALIFIED_NAME_PATTERN },
});

/** A map of labels to match (a Service's or ReplicationController's selector): label keys and values, replaced whole. */
export const SelectorLabelsSchema = StringMap(Type.String({ pattern: LABEL_VALUE_PATTERN, maxLength: LABEL_VALUE_MAX_LENGTH }), {
  propertyNames: { pattern: QUALIFIED_NAME_PATTERN },
  'x-svc-map-type': 'atomic',
});

export const AnnotationsSchema = StringMap(Type.String(), { propertyNames: { pattern: ANNOTATION_KEY_PATTERN } });

function objectMetaProperties(nameRule: NameRule) {
  const name = NAME_RULES[nameRule];
  return {
    name: Type.Optional(Type.String(name.maxLength === undefined ? { pattern: name.pattern } : { pattern: name.pattern, maxLength: name.maxLength })),
    generateName: Type.Optional(Type.String(name.maxLength === undefined ? {} : { maxLength: name.maxLength })),
    namespace: Type.Optional(Type.String({ pattern: DNS1123_LABEL_PATTERN, maxLength: DNS1123_LABEL_MAX_LENGTH })),
    selfLink: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    resourceVersion: Type.Optional(Type.String()),
    generation: Type.Optional(Int64({ minimum: 0 })),
    creationTimestamp: Type.Optional(Time()),
    deletionTimestamp: Type.Optional(Time()),
    deletionGracePeriodSeconds: Type.Optional(Int64({ minimum: 0 })),
    labels: Type.Optional(LabelsSchema),
    annotations: Type.Optional(AnnotationsSchema),
    ownerReferences: Type.Optional(ListMap(OwnerReferenceSchema, ['uid'])),
    finalizers: Type.Optional(ListSet(Type.String({ pattern: QUALIFIED_NAME_PATTERN }))),
    managedFields: Type.Optional(ListAtomic(ManagedFieldsEntrySchema)),
  };
}

// One schema object per rule, so that the engine compiles each variant once for all kinds.
const OBJECT_META_BY_RULE = {
  'dns1123-subdomain': Type.Object(objectMetaProperties('dns1123-subdomain')),
  'dns1123-label': Type.Object(objectMetaProperties('dns1123-label')),
  'dns1035-label': Type.Object(objectMetaProperties('dns1035-label')),
  'path-segment': Type.Object(objectMetaProperties('path-segment')),
};

/**
 * ObjectMeta whose `name` follows `nameRule`. The rule differs per kind (a Namespace name is a
 * DNS label, a Service name a DNS-1035 label), so each kind embeds its own variant.
 */
export function objectMetaSchema(nameRule: NameRule = 'dns1123-subdomain') {
  return OBJECT_META_BY_RULE[nameRule];
}

export const ObjectMetaSchema = objectMetaSchema('dns1123-subdomain');

/** Metadata of an embedded template: nothing is required and no name rule applies. */
export const TemplateObjectMetaSchema = Type.Object({
  ...objectMetaProperties('dns1123-subdomain'),
  name: Type.Optional(Type.String()),
});

// What `kubectl explain` says of each field, in this project's words; every variant says the same.
const OBJECT_META_FIELDS = {
  name: "The object's name, unique among objects of its kind in its namespace. Set at creation (or made from generateName), it cannot change.",
  generateName: 'A prefix the server makes a unique name from, when name is left out: it adds five random characters.',
  namespace: 'The namespace the object lives in; empty for kinds that are cluster-wide. It cannot change.',
  selfLink: 'Not filled in; kept for old clients.',
  uid: 'A value the server gives the object at creation, unique in space and time; a deleted and recreated object gets another. Read-only.',
  resourceVersion:
    'The version of the object, changed by every write. Opaque to clients: send it back in an update to write only over the version read, or use it to watch from there.',
  generation: "A number the server raises with every change to the object's desired state (spec). Read-only.",
  creationTimestamp: 'When the object was created, in UTC. Read-only.',
  deletionTimestamp: 'When the object is to be gone, set once its deletion is asked for; the object stays until its finalizers are removed. Read-only.',
  deletionGracePeriodSeconds: 'How long the object has to end gracefully once deleted; set with deletionTimestamp. Read-only.',
  labels: 'Key-value pairs that selectors (of services, workloads, kubectl -l) match objects by.',
  annotations: 'Key-value pairs for tools and people, not matched by selectors; values may be large.',
  ownerReferences: 'The objects this one belongs to. When every owner is gone, the garbage collector deletes it; a controller owner manages it.',
  finalizers: 'Names of cleanups that must finish before the object is removed: a delete only sets deletionTimestamp until the list is empty.',
  managedFields: 'Which manager (a client or controller) set which fields, and when; kept by the server for server-side apply.',
};
for (const variant of [...Object.values(OBJECT_META_BY_RULE), TemplateObjectMetaSchema]) {
  describeFields(variant, OBJECT_META_FIELDS);
  (variant as { description?: string }).description = 'Metadata every stored object has: its name, namespace, labels, annotations, owners and versions.';
}
