import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, Int64, IntOrString, ListMap } from '../../schema/builders';
import { conditionFieldDescriptions, kindConditionSchema, OptionalTime } from '../../meta/condition';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { PERCENT_PATTERN } from '../../meta/names';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { PodTemplateSpecSchema } from '../core/pod-spec';

/**
 * The annotation apps/v1 carries a DaemonSet's template generation in (1 at creation, raised by each
 * change of the template), which the daemonset controller labels its pods with.
 */
export const DAEMON_SET_TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
/** The label of a DaemonSet pod with the template generation it was made from. */
export const DAEMON_SET_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

export const DaemonSetUpdateStrategyTypes = ['RollingUpdate', 'OnDelete'] as const;

/** An absolute number (integers) or a percentage (strings); each keyword only constrains its own type. */
const IntOrPercent = () => IntOrString({ minimum: 0, pattern: PERCENT_PATTERN });

export const RollingUpdateDaemonSetSchema = Type.Object({
  maxUnavailable: Type.Optional(IntOrPercent()),
  maxSurge: Type.Optional(IntOrPercent()),
});

export const DaemonSetUpdateStrategySchema = Type.Object({
  // Enumerated by the kind's rules, which word an unknown type as Kubernetes does.
  type: Type.Optional(Type.String()),
  rollingUpdate: Type.Optional(RollingUpdateDaemonSetSchema),
});

export const DaemonSetSpecSchema = Type.Object({
  selector: LabelSelectorSchema,
  template: PodTemplateSpecSchema,
  updateStrategy: Type.Optional(DaemonSetUpdateStrategySchema),
  minReadySeconds: Type.Optional(Int32({ minimum: 0 })),
  revisionHistoryLimit: Type.Optional(Int32({ minimum: 0, default: 10 })),
});

export const DaemonSetConditionSchema = kindConditionSchema({ lastTransitionTime: OptionalTime() });

export const DaemonSetStatusSchema = Type.Object({
  currentNumberScheduled: Type.Optional(Int32({ minimum: 0 })),
  numberMisscheduled: Type.Optional(Int32({ minimum: 0 })),
  desiredNumberScheduled: Type.Optional(Int32({ minimum: 0 })),
  numberReady: Type.Optional(Int32({ minimum: 0 })),
  observedGeneration: Type.Optional(Int64({ minimum: 0 })),
  updatedNumberScheduled: Type.Optional(Int32({ minimum: 0 })),
  numberAvailable: Type.Optional(Int32({ minimum: 0 })),
  numberUnavailable: Type.Optional(Int32({ minimum: 0 })),
  collisionCount: Type.Optional(Int32({ minimum: 0 })),
  conditions: Type.Optional(ListMap(DaemonSetConditionSchema, ['type'])),
});

export const DaemonSetSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: DaemonSetSpecSchema,
  status: Type.Optional(DaemonSetStatusSchema),
});
export type DaemonSet = Static<typeof DaemonSetSchema>;
export type DaemonSetList = List<DaemonSet>;
export type DaemonSetSpec = Static<typeof DaemonSetSpecSchema>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  RollingUpdateDaemonSetSchema,
  {
    maxUnavailable:
      'How many nodes may be without an available pod of the DaemonSet during the update, a number or a percentage of the nodes rounded up; 1 by default. 0 only when maxSurge is not.',
    maxSurge:
      'How many nodes may run a new pod beside the old one during the update, a number or a percentage of the nodes rounded up; 0 by default. Not together with a non-zero maxUnavailable.',
  },
  'How fast a DaemonSet rolling update goes.',
);
describeFields(
  DaemonSetUpdateStrategySchema,
  {
    type: 'RollingUpdate (the default) replaces the pods node by node; OnDelete replaces a pod only when it is deleted by hand.',
    rollingUpdate: 'How fast a RollingUpdate goes; only with that type.',
  },
  'How a DaemonSet replaces its pods after a change of its template.',
);
describeFields(
  DaemonSetSpecSchema,
  {
    selector: "Which pods belong to the DaemonSet; it must match the template's labels and cannot change.",
    template: 'The pod to run on each eligible node (by its node selector, affinity and tolerations). A change here starts an update.',
    updateStrategy: 'How pods are replaced after a change of the template.',
    minReadySeconds: 'How long a new pod must be ready, with no container crashing, before it counts as available; 0 by default.',
    revisionHistoryLimit: 'How many old ControllerRevisions are kept for rollbacks; 10 by default.',
  },
  'What a DaemonSet runs on every node.',
);
describeFields(
  DaemonSetConditionSchema,
  conditionFieldDescriptions(DaemonSetConditionSchema, 'No condition is set by the daemonset controller at present.'),
  'One aspect of the state of a DaemonSet.',
);
describeFields(
  DaemonSetStatusSchema,
  {
    currentNumberScheduled: 'How many nodes run a pod of the DaemonSet and should.',
    numberMisscheduled: 'How many nodes run a pod of the DaemonSet and should not.',
    desiredNumberScheduled: 'How many nodes should run a pod of the DaemonSet.',
    numberReady: 'How many nodes run a ready pod of the DaemonSet.',
    observedGeneration: 'The generation of the DaemonSet the controller last acted on.',
    updatedNumberScheduled: 'How many nodes run a pod of the current template.',
    numberAvailable: 'How many nodes run a pod of the DaemonSet that has been ready for minReadySeconds.',
    numberUnavailable: 'How many nodes that should run an available pod of the DaemonSet do not.',
    collisionCount: 'How many times the hash naming a new ControllerRevision collided with an existing one; it salts the next hash.',
    conditions: 'Aspects of the state of the DaemonSet.',
  },
  'What the daemonset controller last observed of a DaemonSet.',
);
(DaemonSetSchema as { description?: string }).description = 'Runs one copy of a pod on every node that may run it, and on each node that joins.';
