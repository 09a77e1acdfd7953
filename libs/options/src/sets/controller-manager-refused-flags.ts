import { UNSUPPORTED_SHARED_FLAGS } from '../flag-set/unsupported-shared-flags';
import type { RefusedFlag } from '../flag-set/refused-flags';

const NO_CLOUD = 'this controller manager runs no cloud provider integration';
const NO_ATTACH = 'this controller manager runs no attach/detach controller';
const NO_VOLUME_PLUGINS = 'this controller manager runs no in-tree volume plugins: volumes are provisioned and deleted by external provisioners';
const NO_RECYCLER = 'this controller manager runs no volume recycler (Recycle is deprecated; such volumes are marked Failed)';
const NO_MIRRORING = 'this controller manager runs no endpointslice mirroring controller';
const NO_TOKENS = 'this controller manager runs no service account token controller';
const NO_MIGRATION = 'is not supported by this controller manager yet: it runs no leader migration';

const refuse = (reason: string, ...flags: string[]): RefusedFlag[] => flags.map((flag) => ({ flag, reason }));

/**
 * Flags of the table (spec 2) whose controller or feature this controller manager lacks: a value other
 * than the default would be accepted and ignored, so it is refused.
 */
export const CONTROLLER_MANAGER_REFUSED_FLAGS: readonly RefusedFlag[] = [
  { flag: 'cidr-allocator-type', reason: 'only the RangeAllocator is implemented' },
  // With an external provider Kubernetes' controller manager runs no cloud loops either.
  { flag: 'cloud-provider', reason: NO_CLOUD, alsoAccepted: ['external'] },
  ...refuse(NO_CLOUD, 'cloud-config', 'cloud-provider-gce-l7lb-src-cidrs', 'azure-container-registry-config', 'configure-cloud-routes'),
  ...refuse(NO_CLOUD, 'external-cloud-volume-plugin', 'route-reconciliation-period'),
  { flag: 'cluster-name', reason: 'no controller here names cloud resources after the cluster' },
  { flag: 'service-cluster-ip-range', reason: 'is not supported by this controller manager yet: node CIDRs are not kept apart from a service range' },
  { flag: 'controller-start-interval', reason: 'is not supported by this controller manager yet: its controllers start together' },
  ...refuse(NO_MIGRATION, 'enable-leader-migration', 'leader-migration-config'),
  ...refuse(NO_ATTACH, 'attach-detach-reconcile-sync-period', 'disable-attach-detach-reconcile-sync'),
  ...refuse(NO_VOLUME_PLUGINS, 'enable-hostpath-provisioner', 'flex-volume-plugin-dir'),
  ...refuse(NO_RECYCLER, 'pv-recycler-increment-timeout-nfs', 'pv-recycler-minimum-timeout-hostpath', 'pv-recycler-minimum-timeout-nfs'),
  ...refuse(NO_RECYCLER, 'pv-recycler-pod-template-filepath-hostpath', 'pv-recycler-pod-template-filepath-nfs', 'pv-recycler-timeout-increment-hostpath'),
  ...refuse(NO_VOLUME_PLUGINS, 'volume-host-allow-local-loopback', 'volume-host-cidr-denylist'),
  ...refuse(NO_MIRRORING, 'mirroring-concurrent-service-endpoint-syncs', 'mirroring-endpointslice-updates-batch-period', 'mirroring-max-endpoints-per-subset'),
  ...refuse(NO_TOKENS, 'concurrent-serviceaccount-token-syncs', 'service-account-private-key-file'),
  { flag: 'concurrent-service-syncs', reason: 'this controller manager runs no service (load balancer) controller' },
  ...UNSUPPORTED_SHARED_FLAGS,
];
