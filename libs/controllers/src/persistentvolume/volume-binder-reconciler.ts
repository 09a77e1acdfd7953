import type { PersistentVolume, PersistentVolumeClaim } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { cacheIndex, EventRecorder, Reconciler, type CacheReader, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { RateLimitedEvents } from '../common/rate-limited-events';
import { BinderWrites, PERSISTENT_VOLUME_EVENT_COMPONENT } from './binder-writes';
import { PersistentVolumeBinderOptions } from './persistent-volume-binder-options';
import { ANN_DYNAMICALLY_PROVISIONED } from './volume-annotations';
import { volumeModeMismatch } from './volume-matching';

export const VOLUME_BINDER_RECONCILER_NAME = 'persistentvolume-binder-volumes';

/** The volume cache index by the claim a volume's claimRef names (`namespace/name`). */
export const VOLUME_CLAIM_INDEX = 'pvByClaim';

export const volumeClaimIndex = cacheIndex(BUILTIN_RESOURCES.persistentVolumes, VOLUME_CLAIM_INDEX, (volume) => {
  const ref = volume.spec?.claimRef;
  return ref?.name ? [`${ref.namespace ?? ''}/${ref.name}`] : [];
});

/** The volumes a claim's change concerns: the one it names, and those whose claimRef names it. */
function volumesOfClaim(claim: PersistentVolumeClaim, cache: CacheReader): Request[] {
  const names = new Set(
    cache
      .byIndex(BUILTIN_RESOURCES.persistentVolumes, VOLUME_CLAIM_INDEX, `${claim.metadata?.namespace ?? ''}/${claim.metadata?.name ?? ''}`)
      .map((v) => v.metadata?.name ?? ''),
  );
  if (claim.spec?.volumeName) names.add(claim.spec.volumeName);
  return [...names].map((name) => ({ name }));
}

/**
 * The volume half of Kubernetes' persistent volume controller (syncVolume): a volume without a claim
 * (or only reserved for one) is Available, one whose claim took it is Bound, one whose claim is gone
 * is Released and reclaimed by its policy; a volume the controller bound to a claim that then took
 * another volume is freed again.
 *
 * Reclaiming: Retain leaves the volume Released for an administrator. Delete of a volume an external
 * provisioner made (`pv.kubernetes.io/provisioned-by` not of `kubernetes.io/`) is that provisioner's
 * to carry out, as Kubernetes leaves it; any other Delete, and Recycle, need an in-tree plugin this
 * cluster does not have, so the volume is Failed with Kubernetes' event.
 */
@Reconciler({
  name: VOLUME_BINDER_RECONCILER_NAME,
  for: BUILTIN_RESOURCES.persistentVolumes,
  watches: [{ resource: BUILTIN_RESOURCES.persistentVolumeClaims, mapTo: (claim, _r: unknown, cache) => volumesOfClaim(claim, cache) }],
  indexes: [volumeClaimIndex],
})
export class VolumeBinderReconciler implements Reconcile {
  private readonly writes: BinderWrites;

  constructor(
    private readonly client: Client,
    private readonly options: PersistentVolumeBinderOptions,
  ) {
    this.writes = new BinderWrites(client, new RateLimitedEvents(new EventRecorder(client, { component: PERSISTENT_VOLUME_EVENT_COMPONENT })));
  }

  async reconcile({ name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const volume = cache.get(BUILTIN_RESOURCES.persistentVolumes, { name });
    if (!volume) return {};
    await this.syncVolume(volume, cache);
    return { requeueAfter: this.options.syncPeriodMs };
  }

  private async syncVolume(volume: PersistentVolume, cache: CacheReader): Promise<void> {
    const ref = volume.spec?.claimRef;
    if (!ref || !ref.uid) {
      // Unused, or reserved for a claim that has not bound it yet (the claim's sync does that).
      await this.writes.updateVolumePhase(volume, 'Available');
      return;
    }
    const phase = volume.status?.phase;
    let claim = cache.get(BUILTIN_RESOURCES.persistentVolumeClaims, { namespace: ref.namespace ?? '', name: ref.name ?? '' });
    // A provisioner's volume may reach this cache before its claim does: the server decides before a volume is released.
    if (!claim && phase !== 'Released' && phase !== 'Failed') claim = await this.liveClaim(ref.namespace ?? '', ref.name ?? '');
    if (claim && claim.metadata?.uid !== ref.uid) claim = undefined;

    if (!claim) {
      let released = volume;
      if (phase !== 'Released' && phase !== 'Failed') released = await this.writes.updateVolumePhase(volume, 'Released');
      await this.reclaim(released, cache);
      return;
    }
    if (!claim.spec?.volumeName) {
      if (volumeModeMismatch(claim, volume)) {
        this.writes.volumeEvent(
          volume,
          'Warning',
          'VolumeMismatch',
          `Cannot bind PersistentVolume to requested PersistentVolumeClaim "${claim.metadata?.name}" due to incompatible volumeMode.`,
        );
        this.writes.claimEvent(
          claim,
          'Warning',
          'VolumeMismatch',
          `Cannot bind PersistentVolume "${volume.metadata?.name}" to requested PersistentVolumeClaim due to incompatible volumeMode.`,
        );
      }
      // The claim's sync completes the binding (it is enqueued by this volume's change).
      return;
    }
    if (claim.spec.volumeName === volume.metadata?.name) {
      await this.writes.updateVolumePhase(volume, 'Bound');
      return;
    }
    // The claim is bound to another volume.
    if (volume.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== undefined && volume.spec?.persistentVolumeReclaimPolicy === 'Delete') {
      let released = volume;
      if (phase !== 'Released' && phase !== 'Failed') released = await this.writes.updateVolumePhase(volume, 'Released');
      await this.reclaim(released, cache);
      return;
    }
    await this.writes.unbindVolume(volume);
  }

  private async liveClaim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined> {
    try {
      return await this.client.persistentVolumeClaims.get(name, { namespace });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Kubernetes' reclaimVolume. */
  private async reclaim(volume: PersistentVolume, cache: CacheReader): Promise<void> {
    switch (volume.spec?.persistentVolumeReclaimPolicy ?? 'Retain') {
      case 'Retain':
        return;
      case 'Recycle':
        await this.writes.updateVolumePhaseWithEvent(volume, 'Failed', 'Warning', 'VolumeFailedRecycle', 'No recycler plugin found for the volume!');
        return;
      case 'Delete':
        await this.delete(volume, cache);
        return;
      default:
        await this.writes.updateVolumePhaseWithEvent(
          volume,
          'Failed',
          'Warning',
          'VolumeUnknownReclaimPolicy',
          'Volume has unrecognized PersistentVolumeReclaimPolicy',
        );
    }
  }

  /** Kubernetes' deleteVolumeOperation, for which only external deleters exist here. */
  private async delete(volume: PersistentVolume, cache: CacheReader): Promise<void> {
    const provisioner = volume.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED];
    // An external provisioner deletes what it made: the volume stays Released until it does.
    if (provisioner && !provisioner.startsWith('kubernetes.io/')) return;
    if (!this.stillReleased(volume, cache)) return;
    const message = provisioner
      ? `no volume plugin matched name: ${provisioner}`
      : `error getting deleter volume plugin for volume "${volume.metadata?.name ?? ''}": no deletable volume plugin matched`;
    await this.writes.updateVolumePhaseWithEvent(volume, 'Failed', 'Warning', 'VolumeFailedDelete', message);
  }

  /** Kubernetes' isVolumeReleased: the claim of its claimRef is gone, or bound to another volume. */
  private stillReleased(volume: PersistentVolume, cache: CacheReader): boolean {
    const ref = volume.spec?.claimRef;
    if (!ref?.uid) return false;
    const claim = cache.get(BUILTIN_RESOURCES.persistentVolumeClaims, { namespace: ref.namespace ?? '', name: ref.name ?? '' });
    if (!claim || claim.metadata?.uid !== ref.uid) return true;
    return !!claim.spec?.volumeName && claim.spec.volumeName !== volume.metadata?.name;
  }
}
