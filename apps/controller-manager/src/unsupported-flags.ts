import { CLUSTER_SIGNERS, CONTROLLER_MANAGER_FLAGS, type ControllerManagerOptions } from '@svc/options';
import { isDeepStrictEqual } from 'node:util';

const NO_CLOUD = 'this controller manager runs no cloud provider integration';
const NO_VOLUMES = 'this controller manager runs no volume controllers';
const NO_SIGNING = 'this controller manager runs no certificate signing controller';

/**
 * Flags of the table (spec 2) whose feature this controller manager lacks, with the reason. A value
 * other than the flag's default would be accepted and ignored, so it is refused; an explicit default
 * (common in manifests) is harmless.
 */
const UNSUPPORTED: ReadonlyArray<readonly [flag: string, reason: string]> = [
  ['cidr-allocator-type', 'only the RangeAllocator is implemented'],
  ['azure-container-registry-config', NO_CLOUD],
  ['configure-cloud-routes', NO_CLOUD],
  ['external-cloud-volume-plugin', NO_CLOUD],
  ['route-reconciliation-period', NO_CLOUD],
  ['cluster-name', 'no controller here names cloud resources after the cluster'],
  ['controller-start-interval', 'is not supported by this controller manager yet: controllers start together'],
  ['enable-leader-migration', 'leader migration is not supported by this controller manager yet'],
  ['leader-migration-config', 'leader migration is not supported by this controller manager yet'],
  ['cert-dir', 'is not supported by this controller manager yet: a generated serving pair is kept in memory'],
  ['attach-detach-reconcile-sync-period', NO_VOLUMES],
  ['disable-attach-detach-reconcile-sync', NO_VOLUMES],
  ['enable-dynamic-provisioning', NO_VOLUMES],
  ['enable-hostpath-provisioner', NO_VOLUMES],
  ['flex-volume-plugin-dir', NO_VOLUMES],
  ['pv-recycler-increment-timeout-nfs', NO_VOLUMES],
  ['pv-recycler-minimum-timeout-hostpath', NO_VOLUMES],
  ['pv-recycler-minimum-timeout-nfs', NO_VOLUMES],
  ['pv-recycler-pod-template-filepath-hostpath', NO_VOLUMES],
  ['pv-recycler-pod-template-filepath-nfs', NO_VOLUMES],
  ['pv-recycler-timeout-increment-hostpath', NO_VOLUMES],
  ['pvclaimbinder-sync-period', NO_VOLUMES],
  ['volume-host-allow-local-loopback', NO_VOLUMES],
  ['volume-host-cidr-denylist', NO_VOLUMES],
  ['cluster-signing-cert-file', NO_SIGNING],
  ['cluster-signing-key-file', NO_SIGNING],
  ['cluster-signing-duration', NO_SIGNING],
  ...CLUSTER_SIGNERS.flatMap((s) => [[`cluster-signing-${s}-cert-file`, NO_SIGNING] as const, [`cluster-signing-${s}-key-file`, NO_SIGNING] as const]),
  ['mirroring-endpointslice-updates-batch-period', 'this controller manager runs no endpointslice mirroring controller'],
  ['mirroring-max-endpoints-per-subset', 'this controller manager runs no endpointslice mirroring controller'],
  ['horizontal-pod-autoscaler-cpu-initialization-period', 'this controller manager runs no horizontal pod autoscaler controller'],
  ['horizontal-pod-autoscaler-downscale-stabilization', 'this controller manager runs no horizontal pod autoscaler controller'],
  ['horizontal-pod-autoscaler-initial-readiness-delay', 'this controller manager runs no horizontal pod autoscaler controller'],
  ['horizontal-pod-autoscaler-sync-period', 'this controller manager runs no horizontal pod autoscaler controller'],
  ['horizontal-pod-autoscaler-tolerance', 'this controller manager runs no horizontal pod autoscaler controller'],
  ['resource-quota-sync-period', 'this controller manager runs no resource quota controller'],
  ['service-account-private-key-file', 'this controller manager runs no service account token controller'],
];

const FLAG_DEFS = new Map(CONTROLLER_MANAGER_FLAGS.groups.flatMap((g) => g.flags.map((f) => [f.name, f] as const)));

/** The first flag of `UNSUPPORTED` given a value other than its default, as the one line to print; undefined when none. */
export function unsupportedFlagProblem(options: ControllerManagerOptions): string | undefined {
  const values = options as unknown as Record<string, unknown>;
  for (const [name, reason] of UNSUPPORTED) {
    const def = FLAG_DEFS.get(name);
    if (!def) throw new Error(`unsupported-flags: --${name} is not in the flag table`);
    const value = values[def.key];
    const unset = value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0);
    const isDefault = 'default' in def && def.default !== undefined ? isDeepStrictEqual(value, def.default) : unset;
    if (!isDefault) return reason.startsWith('is not') ? `--${name} ${reason}` : `--${name} is not supported: ${reason}`;
  }
  return undefined;
}
