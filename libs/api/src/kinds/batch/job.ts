import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, Int64, ListAtomic, ListSet, StringEnum } from '../../schema/builders';
import { conditionFieldDescriptions, kindConditionSchema, OptionalTime } from '../../meta/condition';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { objectMetaSchema, TemplateObjectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';
import { PodTemplateSpecSchema } from '../core/pod-spec';

/** batch/v1's well-known names (k8s.io/api/batch/v1). */
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const JOB_CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
/** The labels Kubernetes put on a Job's pods before it prefixed them; still set beside the prefixed ones. */
export const LEGACY_JOB_NAME_LABEL = 'job-name';
export const LEGACY_JOB_CONTROLLER_UID_LABEL = 'controller-uid';
export const JOB_COMPLETION_INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
export const JOB_INDEX_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-failure-count';
export const JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-ignored-failure-count';
/** The `managedBy` of a Job the built-in job controller runs (the same when the field is absent). */
export const JOB_CONTROLLER_NAME = 'kubernetes.io/job-controller';

export const CompletionModes = ['NonIndexed', 'Indexed'] as const;
/** Sorted, as Kubernetes lists them when an action is not supported. */
export const PodFailurePolicyActions = ['Count', 'FailIndex', 'FailJob', 'Ignore'] as const;
export const PodFailurePolicyOnExitCodesOperators = ['In', 'NotIn'] as const;
export const PodReplacementPolicies = ['Failed', 'TerminatingOrFailed'] as const;
export const JobConditionTypes = ['Suspended', 'Complete', 'Failed', 'FailureTarget', 'SuccessCriteriaMet'] as const;

export const PodFailurePolicyOnExitCodesRequirementSchema = Type.Object({
  containerName: Type.Optional(Type.String()),
  operator: Type.String(),
  values: ListSet(Int32()),
});

export const PodFailurePolicyOnPodConditionsPatternSchema = Type.Object({
  type: Type.String(),
  /** Defaulted to True (SetDefaults_PodFailurePolicyOnPodConditionsPattern). */
  status: Type.Optional(Type.String({ default: 'True' })),
});

export const PodFailurePolicyRuleSchema = Type.Object({
  action: Type.String(),
  onExitCodes: Type.Optional(PodFailurePolicyOnExitCodesRequirementSchema),
  onPodConditions: Type.Optional(ListAtomic(PodFailurePolicyOnPodConditionsPatternSchema)),
});

export const PodFailurePolicySchema = Type.Object({ rules: ListAtomic(PodFailurePolicyRuleSchema) });

export const SuccessPolicyRuleSchema = Type.Object({
  succeededIndexes: Type.Optional(Type.String()),
  succeededCount: Type.Optional(Int32()),
});

export const SuccessPolicySchema = Type.Object({ rules: ListAtomic(SuccessPolicyRuleSchema) });

// Defaulted by the Job's hooks, not here: a CronJob's job template keeps what its author wrote.
export const JobSpecSchema = Type.Object({
  parallelism: Type.Optional(Int32({ minimum: 0 })),
  completions: Type.Optional(Int32({ minimum: 0 })),
  activeDeadlineSeconds: Type.Optional(Int64({ minimum: 0 })),
  podFailurePolicy: Type.Optional(PodFailurePolicySchema),
  successPolicy: Type.Optional(SuccessPolicySchema),
  backoffLimit: Type.Optional(Int32({ minimum: 0 })),
  backoffLimitPerIndex: Type.Optional(Int32({ minimum: 0 })),
  maxFailedIndexes: Type.Optional(Int32({ minimum: 0 })),
  /** Made by the server from the Job's uid unless manualSelector is true. */
  selector: Type.Optional(LabelSelectorSchema),
  manualSelector: Type.Optional(Type.Boolean()),
  template: PodTemplateSpecSchema,
  ttlSecondsAfterFinished: Type.Optional(Int32({ minimum: 0 })),
  completionMode: Type.Optional(StringEnum(CompletionModes)),
  suspend: Type.Optional(Type.Boolean()),
  podReplacementPolicy: Type.Optional(Type.String()),
  managedBy: Type.Optional(Type.String()),
});

export const JobConditionSchema = kindConditionSchema({ lastProbeTime: OptionalTime(), lastTransitionTime: OptionalTime() });

export const UncountedTerminatedPodsSchema = Type.Object({
  succeeded: Type.Optional(ListSet(Type.String())),
  failed: Type.Optional(ListSet(Type.String())),
});

export const JobStatusSchema = Type.Object({
  // Atomic for apply, merged by type for a strategic merge patch, as Kubernetes declares it.
  conditions: Type.Optional(ListAtomic(JobConditionSchema, { 'x-svc-patch-merge-key': 'type', 'x-svc-patch-strategy': 'merge' })),
  startTime: OptionalTime(),
  completionTime: OptionalTime(),
  active: Type.Optional(Int32({ minimum: 0 })),
  succeeded: Type.Optional(Int32({ minimum: 0 })),
  failed: Type.Optional(Int32({ minimum: 0 })),
  terminating: Type.Optional(Int32({ minimum: 0 })),
  completedIndexes: Type.Optional(Type.String()),
  failedIndexes: Type.Optional(Type.String()),
  uncountedTerminatedPods: Type.Optional(UncountedTerminatedPodsSchema),
  ready: Type.Optional(Int32({ minimum: 0 })),
});

export const JobSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: JobSpecSchema,
  status: Type.Optional(JobStatusSchema),
});
export type Job = Static<typeof JobSchema>;
export type JobList = List<Job>;
export type JobSpec = Static<typeof JobSpecSchema>;
export type JobStatus = Static<typeof JobStatusSchema>;
export type JobCondition = Static<typeof JobConditionSchema>;

/** The Job a CronJob makes each time it fires: its metadata and spec. */
export const JobTemplateSpecSchema = Type.Object({
  metadata: Type.Optional(TemplateObjectMetaSchema),
  spec: Type.Optional(JobSpecSchema),
});

// What `kubectl explain` says of each field, in this project's words.
describeFields(
  PodFailurePolicyOnExitCodesRequirementSchema,
  {
    containerName: 'The container (or init container) whose exit code counts; every container of the pod when left out.',
    operator: 'In: the rule matches when an exit code is one of values; NotIn: when a non-zero exit code is none of them.',
    values: 'The exit codes, in increasing order, each once; 0 is not allowed with In. At most 255.',
  },
  'Which exit codes of a failed pod a rule of a pod failure policy matches.',
);
describeFields(
  PodFailurePolicyOnPodConditionsPatternSchema,
  {
    type: 'The pod condition to look for, such as DisruptionTarget.',
    status: 'The status the condition must have: True (the default), False or Unknown.',
  },
  'A pod condition a rule of a pod failure policy matches.',
);
describeFields(
  PodFailurePolicyRuleSchema,
  {
    action:
      'What a matching failure does: FailJob fails the whole Job, FailIndex fails the pod’s index (with backoffLimitPerIndex), Ignore does not count it against the backoff limit, Count counts it as usual.',
    onExitCodes: 'Matches a failed pod by the exit codes of its containers.',
    onPodConditions: 'Matches a failed pod by its conditions; the rule matches when any of them does.',
  },
  'One rule of a pod failure policy: which failures it matches and what they do. Exactly one of onExitCodes and onPodConditions.',
);
describeFields(
  PodFailurePolicySchema,
  { rules: 'The rules, tried in order against each failed pod; the first that matches decides. At most 20.' },
  'How failures of the pods of a Job count: what fails the Job at once, what is ignored.',
);
describeFields(
  SuccessPolicyRuleSchema,
  {
    succeededIndexes:
      'Indexes that must succeed, as a list of numbers and ranges such as `0,3-5`, increasing and below completions. With succeededCount, enough of them.',
    succeededCount: 'How many indexes must succeed (of succeededIndexes when given). At most completions.',
  },
  'One way an Indexed Job may succeed early.',
);
describeFields(
  SuccessPolicySchema,
  { rules: 'The rules; the Job succeeds as soon as one is met, and its remaining pods are stopped. At most 20.' },
  'When an Indexed Job counts as succeeded before all its indexes have.',
);
describeFields(
  JobSpecSchema,
  {
    parallelism: 'How many pods may run at once; 1 by default. 0 pauses the Job.',
    completions:
      'How many pods must succeed for the Job to be complete. Left out, the Job is complete when any pod succeeds and the others have ended. Required for Indexed Jobs.',
    activeDeadlineSeconds: 'How long the Job may run, counted from its start, before its pods are stopped and it fails (reason DeadlineExceeded).',
    podFailurePolicy: 'How failures of its pods count: rules that fail the Job at once or ignore a failure. Needs restartPolicy Never.',
    successPolicy: 'When an Indexed Job succeeds before all its indexes have.',
    backoffLimit: 'How many failed pods the Job tolerates before it fails (reason BackoffLimitExceeded); 6 by default.',
    backoffLimitPerIndex: 'For an Indexed Job, how many times each index may fail before that index counts as failed.',
    maxFailedIndexes: 'For an Indexed Job with backoffLimitPerIndex, how many failed indexes fail the whole Job.',
    selector: "Which pods belong to the Job. Made by the server from the Job's uid unless manualSelector is true; it cannot change.",
    manualSelector: 'Whether the selector and the labels of the template are left as given instead of being made by the server; false by default.',
    template: 'The pods the Job runs; restartPolicy must be OnFailure or Never.',
    ttlSecondsAfterFinished: 'How long after it finishes the Job (and its pods) is deleted; kept until deleted by hand when left out.',
    completionMode:
      'NonIndexed (the default): any completions pods succeeding complete the Job. Indexed: each pod gets an index from 0 to completions-1, and each index must succeed once.',
    suspend: 'While true, the Job creates no pod and the running ones are stopped; false by default.',
    podReplacementPolicy:
      'When a failed pod is replaced: TerminatingOrFailed (as soon as it is terminating, the default) or Failed (only once it has fully ended; the only choice with a podFailurePolicy).',
    managedBy:
      'The controller that runs the Job, as a domain-prefixed path; the built-in job controller (kubernetes.io/job-controller) when left out. It cannot change.',
  },
  'What a Job runs and how many times it must succeed.',
);
describeFields(
  UncountedTerminatedPodsSchema,
  {
    succeeded: 'Uids of succeeded pods not yet counted in status.succeeded.',
    failed: 'Uids of failed pods not yet counted in status.failed.',
  },
  'Pods that ended and whose job-tracking finalizer is being removed, before they are counted.',
);
describeFields(
  JobConditionSchema,
  conditionFieldDescriptions(
    JobConditionSchema,
    'Complete, Failed, Suspended, FailureTarget (the Job is failing and its pods are being stopped) or SuccessCriteriaMet (it is succeeding and its pods are being stopped).',
  ),
  'One aspect of the state of a Job.',
);
describeFields(
  JobStatusSchema,
  {
    conditions: 'Where the Job stands: Complete, Failed, Suspended, FailureTarget, SuccessCriteriaMet, with why.',
    startTime: 'When the job controller first started the Job (or resumed it).',
    completionTime: 'When the Job completed; set only for a Job that succeeded.',
    active: 'How many pods are pending or running.',
    succeeded: 'How many pods have succeeded.',
    failed: 'How many pods have failed.',
    terminating: 'How many pods are terminating: being stopped, not yet ended.',
    completedIndexes: 'For an Indexed Job, the indexes that succeeded, as numbers and ranges such as `1,3-5`.',
    failedIndexes: 'For an Indexed Job with backoffLimitPerIndex, the indexes that failed, as numbers and ranges.',
    uncountedTerminatedPods: 'Pods that ended and are not yet counted in succeeded or failed.',
    ready: 'How many of its pods are ready.',
  },
  'What the job controller last observed of a Job.',
);
describeFields(
  JobTemplateSpecSchema,
  {
    metadata: 'Labels and annotations of the Jobs made from the template.',
    spec: 'The spec of the Jobs made from the template.',
  },
  'The Job a CronJob makes each time it fires.',
);
(JobSchema as { description?: string }).description = 'Runs pods until a number of them have succeeded, replacing those that fail.';
