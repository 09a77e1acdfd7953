/** What changed in the cluster that might make a waiting pod fit (Kubernetes' framework.ClusterEvent). */
export type ClusterEvent =
  | { resource: 'Node'; action: 'Add' }
  | { resource: 'Node'; action: 'Update'; changes: ReadonlySet<NodeChange> }
  | { resource: 'AssignedPod'; action: 'Add' | 'Delete' }
  | { resource: 'AssignedPod'; action: 'Update'; changes: ReadonlySet<'label'> }
  /** A claim, volume or storage class the volume binding reads appeared or changed. */
  | { resource: 'PersistentVolumeClaim' | 'PersistentVolume' | 'StorageClass'; action: 'Add' | 'Update' }
  /** A pod left the unschedulable pods after waiting the longest allowed. */
  | { resource: 'Unschedulable'; action: 'Timeout' };

export type NodeChange = 'label' | 'taint' | 'allocatable' | 'unschedulable' | 'condition';

export function describeEvent(event: ClusterEvent): string {
  return `${event.resource}${event.action}`;
}
