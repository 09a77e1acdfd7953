import type { JsonSchema } from '../json-schema';
import type { ObjectMeta } from '../meta/object-meta';
import type { OwnerReference } from '../meta/owner-reference';

const str: JsonSchema = { type: 'string' };
const int: JsonSchema = { type: 'integer' };
const stringMap: JsonSchema = { type: 'object', additionalProperties: str };

/**
 * ObjectMeta with the merge markers Kubernetes gives it. Field ownership uses it for any
 * `metadata` a kind's schema leaves undeclared, as custom resources usually do, so that labels
 * merge key by key, finalizers as a set and owner references by uid on every kind. Its fields are
 * checked against the ObjectMeta wire type, both ways.
 */
export const objectMetaSchema: JsonSchema = {
  type: 'object',
  properties: {
    name: str,
    generateName: str,
    namespace: str,
    selfLink: str,
    uid: str,
    resourceVersion: str,
    generation: int,
    creationTimestamp: str,
    deletionTimestamp: str,
    deletionGracePeriodSeconds: int,
    labels: stringMap,
    annotations: stringMap,
    ownerReferences: {
      type: 'array',
      'x-svc-list-type': 'map',
      'x-svc-list-map-keys': ['uid'],
      items: {
        type: 'object',
        properties: {
          apiVersion: str,
          kind: str,
          name: str,
          uid: str,
          controller: { type: 'boolean' },
          blockOwnerDeletion: { type: 'boolean' },
        } satisfies Record<keyof OwnerReference, JsonSchema>,
      },
    },
    finalizers: { type: 'array', 'x-svc-list-type': 'set', items: str },
    managedFields: { type: 'array', 'x-svc-list-type': 'atomic', items: { type: 'object' } },
  } satisfies Record<keyof ObjectMeta, JsonSchema>,
};
