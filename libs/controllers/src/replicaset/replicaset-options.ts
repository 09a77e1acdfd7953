import type { ControllerManagerOptions } from '@svc/options';

/**
 * What the ReplicaSet and ReplicationController controllers take from the flags: the feature gates
 * `--feature-gates` turns off (each on in Kubernetes 1.32 by default).
 */
export class ReplicaSetOptions {
  constructor(
    /** PodDeletionCost: the `controller.kubernetes.io/pod-deletion-cost` annotation ranks pods to delete. */
    readonly deletionCost = true,
    /** LogarithmicScaleDown: pods of about the same age are ranked as one, by log2 of their age. */
    readonly logarithmicScaleDown = true,
    /** DeploymentReplicaSetTerminatingReplicas: a ReplicaSet's status counts its terminating pods. */
    readonly countTerminating = true,
  ) {}

  static fromFlags(flags: Pick<ControllerManagerOptions, 'featureGates'>): ReplicaSetOptions {
    const gates = flags.featureGates ?? {};
    return new ReplicaSetOptions(
      gates.PodDeletionCost !== false,
      gates.LogarithmicScaleDown !== false,
      gates.DeploymentReplicaSetTerminatingReplicas !== false,
    );
  }
}
