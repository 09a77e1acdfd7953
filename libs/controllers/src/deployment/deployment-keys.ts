/**
 * The label, annotation and condition names Kubernetes' deployment controller writes: kubectl
 * (`rollout history`, `rollout undo`, `rollout status`, `describe`) reads them, so they are the same.
 */

/** Label added to a ReplicaSet's selector, template and own labels, keeping its pods apart from its siblings'. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** The rollout sequence number, on each ReplicaSet and (the newest one's) on the Deployment. */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
/** Earlier revisions a ReplicaSet served, comma separated, when it was made the new one again (rollback). */
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
/** The Deployment's spec.replicas when the ReplicaSet was last sized: tells a scaling event from a rollout. */
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
/** spec.replicas + maxSurge when the ReplicaSet was last sized: the base of proportional scaling. */
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
export const LAST_APPLIED_CONFIG_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** extensions/v1beta1's rollback request annotation; never copied to a ReplicaSet. */
export const DEPRECATED_ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';

/** Bound of the revision-history annotation, as Kubernetes' default. */
export const MAX_REVISION_HISTORY_CHARS = 2000;

export const CONDITION_PROGRESSING = 'Progressing';
export const CONDITION_AVAILABLE = 'Available';
export const CONDITION_REPLICA_FAILURE = 'ReplicaFailure';

/** Reasons of the Progressing and Available conditions. */
export const Reasons = {
  replicaSetUpdated: 'ReplicaSetUpdated',
  failedReplicaSetCreate: 'ReplicaSetCreateError',
  newReplicaSetCreated: 'NewReplicaSetCreated',
  foundNewReplicaSet: 'FoundNewReplicaSet',
  newReplicaSetAvailable: 'NewReplicaSetAvailable',
  progressDeadlineExceeded: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;
