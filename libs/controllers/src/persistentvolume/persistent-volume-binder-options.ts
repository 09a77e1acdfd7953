import type { ControllerManagerOptions } from '@svc/options';

/** Kubernetes' default `--pvclaimbinder-sync-period`. */
export const PV_CLAIM_BINDER_SYNC_PERIOD_MS = 15_000;

/** What the persistent volume controller takes from the flags. */
export class PersistentVolumeBinderOptions {
  constructor(
    /** `--pvclaimbinder-sync-period`: every claim and volume is synced again this often. */
    readonly syncPeriodMs = PV_CLAIM_BINDER_SYNC_PERIOD_MS,
    /** `--enable-dynamic-provisioning`: whether claims of a class are handed to its provisioner. */
    readonly enableDynamicProvisioning = true,
  ) {}

  static fromFlags(flags: Pick<ControllerManagerOptions, 'pvclaimbinderSyncPeriod' | 'enableDynamicProvisioning'>): PersistentVolumeBinderOptions {
    return new PersistentVolumeBinderOptions(flags.pvclaimbinderSyncPeriod, flags.enableDynamicProvisioning);
  }
}
