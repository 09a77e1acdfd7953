import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, Int64, IntOrString, ListAtomic, ListMap } from '../../schema/builders';
import { conditionFieldDescriptions, kindConditionSchema, OptionalTime } from '../../meta/condition';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { PERCENT_PATTERN } from '../../meta/names';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { PersistentVolumeClaimTemplateSchema } from '../core/persistent-volume-claim';
import { PodTemplateSpecSchema } from '../core/pod-spec';

/** The label a StatefulSet's pod carries with its own name, so that a Service can select that one pod. */
export const STATEFUL_SET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** The label with a StatefulSet pod's ordinal (Kubernetes' apps.kubernetes.io/pod-index). */
export const STATEFUL_SET_POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

export const PodManagementPolicies = ['OrderedReady', 'Parallel'] as const;
export const StatefulSetUpdateStrategyTypes = ['RollingUpdate', 'OnDelete'] as const;
export const PersistentVolumeClaimRetentionPolicyTypes = ['Retain', 'Delete'] as const;

/** An absolute number (integers) or a percentage (strings); each keyword only constrains its own type. */
const IntOrPercent = () => IntOrString({ minimum: 0, pattern: PERCENT_PATTERN });

export const RollingUpdateStatefulSetStrategySchema = Type.Object({
  partition: Type.Optional(Int32({ minimum: 0 })),
  maxUnavailable: Type.Optional(IntOrPercent()),
});

export const StatefulSetUpdateStrategySchema = Type.Object({
  // Enumerated by the kind's rules, which word an unknown type as Kubernetes does.
  type: Type.Optional(Type.String()),
  rollingUpdate: Type.Optional(RollingUpdateStatefulSetStrategySchema),
});

export const StatefulSetPersistentVolumeClaimRetentionPolicySchema = Type.Object({
  whenDeleted: Type.Optional(Type.String()),
  whenScaled: Type.Optional(Type.String()),
});

export const StatefulSetOrdinalsSchema = Type.Object({ start: Type.Optional(Int32({ minimum: 0 })) });

export const StatefulSetSpecSchema = Type.Object({
  replicas: Type.Optional(Int32({ minimum: 0, default: 1 })),
  selector: LabelSelectorSchema,
  template: PodTemplateSpecSchema,
  volumeClaimTemplates: Type.Optional(ListAtomic(PersistentVolumeClaimTemplateSchema)),
  serviceName: Type.Optional(Type.String()),
  podManagementPolicy: Type.Optional(Type.String({ default: 'OrderedReady' })),
  updateStrategy: Type.Optional(StatefulSetUpdateStrategySchema),
  revisionHistoryLimit: Type.Optional(Int32({ default: 10 })),
  minReadySeconds: Type.Optional(Int32({ minimum: 0 })),
  persistentVolumeClaimRetentionPolicy: Type.Optional(StatefulSetPersistentVolumeClaimRetentionPolicySchema),
  ordinals: Type.Optional(StatefulSetOrdinalsSchema),
});

export const StatefulSetConditionSchema = kindConditionSchema({ lastTransitionTime: OptionalTime() });

export const StatefulSetStatusSchema = Type.Object({
  observedGeneration: Type.Optional(Int64({ minimum: 0 })),
  replicas: Type.Optional(Int32({ minimum: 0 })),
  readyReplicas: Type.Optional(Int32({ minimum: 0 })),
  currentReplicas: Type.Optional(Int32({ minimum: 0 })),
  updatedReplicas: Type.Optional(Int32({ minimum: 0 })),
  currentRevision: Type.Optional(Type.String()),
  updateRevision: Type.Optional(Type.String()),
  collisionCount: Type.Optional(Int32({ minimum: 0 })),
  conditions: Type.Optional(ListMap(StatefulSetConditionSchema, ['type'])),
  availableReplicas: Type.Optional(Int32({ minimum: 0 })),
});

export const StatefulSetSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-label')),
  spec: StatefulSetSpecSchema,
  status: Type.Optional(StatefulSetStatusSchema),
});
export type StatefulSet = Static<typeof StatefulSetSchema>;
export type StatefulSetList = List<StatefulSet>;
export type StatefulSetSpec = Static<typeof StatefulSetSpecSchema>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  RollingUpdateStatefulSetStrategySchema,
  {
    partition: 'Only pods with an ordinal at or above this number are updated; the others keep the old template. 0 by default.',
    maxUnavailable:
      'How many pods may be unavailable at once during the update, a number or a percentage; 1 by default. Only with the MaxUnavailableStatefulSet feature, off here as in Kubernetes 1.32.',
  },
  'How a StatefulSet rolling update goes.',
);
describeFields(
  StatefulSetUpdateStrategySchema,
  {
    type: 'RollingUpdate (the default) replaces pods one by one, highest ordinal first; OnDelete replaces a pod only when it is deleted by hand.',
    rollingUpdate: 'How a RollingUpdate goes; only with that type.',
  },
  'How a StatefulSet replaces its pods after a change of its template.',
);
describeFields(
  StatefulSetPersistentVolumeClaimRetentionPolicySchema,
  {
    whenDeleted: 'What happens to the claims made from volumeClaimTemplates when the StatefulSet is deleted: Retain (the default) or Delete.',
    whenScaled: 'What happens to the claims of the pods removed by a scale-down: Retain (the default) or Delete.',
  },
  'Whether the claims made from a StatefulSet’s volumeClaimTemplates outlive their pods.',
);
describeFields(
  StatefulSetOrdinalsSchema,
  { start: 'The ordinal of the first pod; the pods are numbered start to start+replicas-1. 0 by default.' },
  'How the pods of a StatefulSet are numbered.',
);
describeFields(
  StatefulSetSpecSchema,
  {
    replicas: 'How many pods to run; 1 by default.',
    selector: "Which pods belong to the StatefulSet; it must match the template's labels and cannot change.",
    template: 'The pods the StatefulSet runs, each named <statefulset>-<ordinal>. A change here starts an update.',
    volumeClaimTemplates: 'Claims made for each pod (named <claim>-<pod>) and mounted into it by name; they cannot change.',
    serviceName: 'The headless Service that gives each pod its stable DNS name, <pod>.<service>. It cannot change.',
    podManagementPolicy:
      'OrderedReady (the default): pods are made one at a time in order, each once the one before is ready, and removed in reverse. Parallel: all at once. Updates are not affected.',
    updateStrategy: 'How pods are replaced after a change of the template.',
    revisionHistoryLimit: 'How many old ControllerRevisions are kept for rollbacks; 10 by default.',
    minReadySeconds: 'How long a new pod must be ready, with no container crashing, before it counts as available; 0 by default.',
    persistentVolumeClaimRetentionPolicy: 'Whether the claims made from volumeClaimTemplates are deleted with the StatefulSet or on scale-down.',
    ordinals: 'The number of the first pod.',
  },
  'What a StatefulSet runs: pods with stable names, storage and order.',
);
describeFields(
  StatefulSetConditionSchema,
  conditionFieldDescriptions(StatefulSetConditionSchema, 'No condition is set by the statefulset controller at present.'),
  'One aspect of the state of a StatefulSet.',
);
describeFields(
  StatefulSetStatusSchema,
  {
    observedGeneration: 'The generation of the StatefulSet the controller last acted on.',
    replicas: 'How many pods the StatefulSet has.',
    readyReplicas: 'How many of them are ready.',
    currentReplicas: 'How many of them run the revision currentRevision names.',
    updatedReplicas: 'How many of them run the revision updateRevision names.',
    currentRevision: 'The ControllerRevision of the pods not yet updated.',
    updateRevision: 'The ControllerRevision the pods are being updated to.',
    collisionCount: 'How many times the hash naming a new ControllerRevision collided with an existing one; it salts the next hash.',
    conditions: 'Aspects of the state of the StatefulSet.',
    availableReplicas: 'How many of them have been ready for minReadySeconds.',
  },
  'What the statefulset controller last observed of a StatefulSet.',
);
(StatefulSetSchema as { description?: string }).description =
  'Runs pods with stable, ordered names and hostnames, each with storage of its own, and replaces them in order.';
