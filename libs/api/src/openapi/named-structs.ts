import * as crd from '../kinds/apiextensions/custom-resource-definition';
import * as authnReviews from '../kinds/authentication/reviews';
import * as authzReviews from '../kinds/authorization/reviews';
import * as controllerRevision from '../kinds/apps/controller-revision';
import * as daemonSet from '../kinds/apps/daemon-set';
import * as deployment from '../kinds/apps/deployment';
import * as replicaSet from '../kinds/apps/replica-set';
import * as statefulSet from '../kinds/apps/stateful-set';
import * as cronJob from '../kinds/batch/cron-job';
import * as job from '../kinds/batch/job';
import * as lease from '../kinds/coordination/lease';
import * as componentStatus from '../kinds/core/component-status';
import * as configMap from '../kinds/core/config-map';
import * as container from '../kinds/core/container';
import * as endpoints from '../kinds/core/endpoints';
import * as event from '../kinds/core/event';
import * as namespace from '../kinds/core/namespace';
import * as node from '../kinds/core/node';
import * as objectReference from '../kinds/core/object-reference';
import * as nodeSelector from '../kinds/core/node-selector';
import * as persistentVolume from '../kinds/core/persistent-volume';
import * as persistentVolumeClaim from '../kinds/core/persistent-volume-claim';
import * as pod from '../kinds/core/pod';
import * as podSpec from '../kinds/core/pod-spec';
import * as secret from '../kinds/core/secret';
import * as service from '../kinds/core/service';
import * as serviceAccount from '../kinds/core/service-account';
import * as resourceQuota from '../kinds/core/resource-quota';
import * as limitRange from '../kinds/core/limit-range';
import * as priorityClass from '../kinds/scheduling/priority-class';
import * as runtimeClass from '../kinds/node/runtime-class';
import * as flowSchema from '../kinds/flowcontrol/flow-schema';
import * as priorityLevel from '../kinds/flowcontrol/priority-level-configuration';
import * as csiDriver from '../kinds/storage/csi-driver';
import * as csiNode from '../kinds/storage/csi-node';
import * as csiStorageCapacity from '../kinds/storage/csi-storage-capacity';
import * as storageClass from '../kinds/storage/storage-class';
import * as volumeAttachment from '../kinds/storage/volume-attachment';
import * as ingress from '../kinds/networking/ingress';
import * as ingressClass from '../kinds/networking/ingress-class';
import * as networkPolicy from '../kinds/networking/network-policy';
import * as volume from '../kinds/core/volume';
import * as hpaV1 from '../kinds/autoscaling/horizontal-pod-autoscaler-v1';
import * as hpaV2 from '../kinds/autoscaling/horizontal-pod-autoscaler';
import * as condition from '../meta/condition';
import * as deleteOptions from '../meta/delete-options';
import * as labelSelector from '../meta/label-selector';
import * as listMeta from '../meta/list-meta';
import * as managedFields from '../meta/managed-fields-entry';
import * as objectMeta from '../meta/object-meta';
import * as ownerReference from '../meta/owner-reference';
import * as status from '../meta/status';
import * as table from '../meta/table';
import * as typeMeta from '../meta/type-meta';
import * as watchEvent from '../meta/watch-event';
import type { JsonSchema } from '../schema/json-schema';
import { META_SCHEMA_PREFIX } from './openapi-names';

/**
 * The names of the structs kinds are composed of, for the documents' `components.schemas`.
 * Kinds are TypeBox compositions of exported constants (`DeploymentSpecSchema`, `ContainerSchema`,
 * ...); a struct keeps its `properties` object wherever it is used (Type.Optional copies the
 * schema, not its properties), so that object identifies it, and the constant's name minus
 * `Schema` names it, as Kubernetes names its types. CRD schemas are parsed JSON and stay inline.
 */

export interface NamedStruct {
  /** Component key, e.g. `io.svc.api.apps.v1.DeploymentSpec`. */
  component: string;
  /** The schema whose body the component carries. */
  canonical: JsonSchema;
}

const SOURCES: ReadonlyArray<readonly [string, ReadonlyArray<Record<string, unknown>>]> = [
  [META_SCHEMA_PREFIX, [condition, deleteOptions, labelSelector, listMeta, managedFields, objectMeta, ownerReference, status, table, typeMeta, watchEvent]],
  [
    'io.svc.api.core.v1',
    [
      objectReference,
      componentStatus,
      container,
      volume,
      podSpec,
      pod,
      namespace,
      service,
      endpoints,
      configMap,
      secret,
      event,
      node,
      serviceAccount,
      persistentVolumeClaim,
      persistentVolume,
      nodeSelector,
      resourceQuota,
      limitRange,
    ],
  ],
  ['io.svc.api.apps.v1', [deployment, replicaSet, statefulSet, daemonSet, controllerRevision]],
  ['io.svc.api.batch.v1', [job, cronJob]],
  ['io.svc.api.scheduling.v1', [priorityClass]],
  ['io.svc.api.node.v1', [runtimeClass]],
  ['io.svc.api.storage.v1', [storageClass, csiDriver, csiNode, csiStorageCapacity, volumeAttachment]],
  ['io.svc.api.networking.v1', [ingress, ingressClass, networkPolicy]],
  ['io.svc.api.coordination.v1', [lease]],
  ['io.svc.api.apiextensions.v1', [crd]],
  ['io.svc.api.authentication.v1', [authnReviews]],
  ['io.svc.api.authorization.v1', [authzReviews]],
  ['io.svc.api.flowcontrol.v1', [flowSchema, priorityLevel]],
  ['io.svc.api.autoscaling.v2', [hpaV2]],
  ['io.svc.api.autoscaling.v1', [hpaV1]],
];

function isStruct(value: unknown): value is JsonSchema & { properties: Record<string, JsonSchema> } {
  if (typeof value !== 'object' || value === null) return false;
  const props = (value as JsonSchema).properties;
  return typeof props === 'object' && props !== null && Object.keys(props).length > 0;
}

let registry: Map<object, NamedStruct> | undefined;

/** Struct `properties` object -> its component; built once. */
export function namedStructs(): ReadonlyMap<object, NamedStruct> {
  if (registry) return registry;
  const map = new Map<object, NamedStruct>();
  for (const [prefix, modules] of SOURCES) {
    for (const mod of modules) {
      for (const [exported, value] of Object.entries(mod)) {
        const m = /^([A-Z][A-Za-z0-9]*)Schema$/.exec(exported);
        if (!m || !isStruct(value)) continue;
        // Whole objects (kinds, Status, Table, Scale) are components of their own, made by the document.
        if (value.properties.apiVersion && value.properties.kind && value.properties.metadata) continue;
        if (!map.has(value.properties)) map.set(value.properties, { component: `${prefix}.${m[1]}`, canonical: value });
      }
    }
  }
  // Every ObjectMeta variant (per-kind name rules, templates) is documented as the one ObjectMeta.
  const meta: NamedStruct = { component: `${META_SCHEMA_PREFIX}.ObjectMeta`, canonical: objectMeta.ObjectMetaSchema };
  for (const variant of [
    objectMeta.ObjectMetaSchema,
    objectMeta.objectMetaSchema('dns1123-label'),
    objectMeta.objectMetaSchema('dns1035-label'),
    objectMeta.TemplateObjectMetaSchema,
  ]) {
    map.set(variant.properties, meta);
  }
  registry = map;
  return map;
}
