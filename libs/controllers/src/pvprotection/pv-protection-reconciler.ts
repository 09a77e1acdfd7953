import type { PersistentVolume } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { Reconciler, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { isDeletionCandidate, needsFinalizer, withFinalizer } from '../common/finalizers';
import { PV_PROTECTION_FINALIZER } from '../persistentvolume/volume-annotations';

export const PV_PROTECTION_RECONCILER_NAME = 'pv-protection';

/**
 * Kubernetes' PV protection controller: a volume being deleted keeps the `kubernetes.io/pv-protection`
 * finalizer while it is Bound, and loses it once it is not; a volume without the finalizer that is
 * not being deleted gets it.
 */
@Reconciler({ name: PV_PROTECTION_RECONCILER_NAME, for: BUILTIN_RESOURCES.persistentVolumes })
export class PvProtectionReconciler implements Reconcile {
  constructor(private readonly client: Client) {}

  async reconcile({ name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const volume = cache.get(BUILTIN_RESOURCES.persistentVolumes, { name });
    if (!volume) return {};
    if (isDeletionCandidate(volume, PV_PROTECTION_FINALIZER)) {
      if (volume.status?.phase !== 'Bound') await this.write(withFinalizer(volume, PV_PROTECTION_FINALIZER, false));
      return {};
    }
    if (needsFinalizer(volume, PV_PROTECTION_FINALIZER)) await this.write(withFinalizer(volume, PV_PROTECTION_FINALIZER, true));
    return {};
  }

  private async write(volume: PersistentVolume): Promise<void> {
    try {
      await this.client.persistentVolumes.update(volume);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
