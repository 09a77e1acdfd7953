/**
 * The annotations and finalizers of Kubernetes' volume binding protocol, by their well-known names:
 * the persistent volume controller, the scheduler, external provisioners and the node agent all
 * speak through them.
 */

/** On a claim: the controller finished binding it (from then on only its bound state is checked). */
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
/** On a claim or a volume: the controller, not the user, set its side of the binding. */
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
/** On a claim: the node the scheduler chose for the first pod using it (WaitForFirstConsumer). */
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
/** On a claim: the provisioner asked to make its volume. */
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
/** The deprecated key of the same, still written beside it as Kubernetes 1.32 does. */
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
/** On a volume: the provisioner that made it (and so deletes it). */
export const ANN_DYNAMICALLY_PROVISIONED = 'pv.kubernetes.io/provisioned-by';
/** The class of a claim or volume before `storageClassName` existed; it still wins over the field. */
export const ANN_BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** The finalizer that keeps a claim in use by a pod from going (StorageObjectInUseProtection). */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
/** The finalizer that keeps a bound volume from going. */
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

/** The provisioner name of classes whose volumes are made only by hand (Kubernetes' NotSupportedProvisioner). */
export const NOT_SUPPORTED_PROVISIONER = 'kubernetes.io/no-provisioner';
