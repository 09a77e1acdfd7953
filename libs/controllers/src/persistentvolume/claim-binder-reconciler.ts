import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { EventRecorder, Reconciler, type CacheReader, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { isPodTerminated, POD_CLAIM_INDEX, podClaimIndex } from '../common/pod-claim-index';
import { RateLimitedEvents } from '../common/rate-limited-events';
import { BinderWrites, PERSISTENT_VOLUME_EVENT_COMPONENT } from './binder-writes';
import { PersistentVolumeBinderOptions } from './persistent-volume-binder-options';
import { ANN_BETA_STORAGE_PROVISIONER, ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_STORAGE_PROVISIONER } from './volume-annotations';
import {
  claimClass,
  claimHasClass,
  claimKey,
  defaultStorageClass,
  findBestMatchForClaim,
  isDelayBindingClass,
  isDelayBindingProvisioning,
  isVolumeBoundToClaim,
  volumeUnfitFor,
} from './volume-matching';

export const CLAIM_BINDER_RECONCILER_NAME = 'persistentvolume-binder-claims';

/** The claims a change of a storage class may unblock: unbound ones of that class, or of none (the retroactive default). */
function claimsOfClass(storageClass: StorageClass, cache: CacheReader): Request[] {
  const name = storageClass.metadata?.name ?? '';
  return cache
    .list(BUILTIN_RESOURCES.persistentVolumeClaims)
    .filter((c) => c.metadata?.annotations?.[ANN_BIND_COMPLETED] === undefined && (claimClass(c) === name || !claimHasClass(c)))
    .map((c) => ({ namespace: c.metadata?.namespace, name: c.metadata?.name ?? '' }));
}

/** Kubernetes' message on a claim whose provisioner is not of this cluster. */
export function externalProvisioningMessage(provisioner: string): string {
  return (
    `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. ` +
    'If volume creation is delayed, please verify that the provisioner is running and correctly registered.'
  );
}

/**
 * The claim half of Kubernetes' persistent volume controller (syncClaim): an unbound claim is bound
 * to the volume that fits it best, or handed to its class's provisioner (the provisioning protocol's
 * annotations), or waits for the scheduler (WaitForFirstConsumer), or for a volume to appear; a bound
 * claim whose volume went or was taken by another claim is Lost. A claim with no class gets the default
 * class once one exists (retroactive default, GA since 1.28). Every claim is synced again each
 * `--pvclaimbinder-sync-period`, as Kubernetes resyncs.
 */
@Reconciler({
  name: CLAIM_BINDER_RECONCILER_NAME,
  for: BUILTIN_RESOURCES.persistentVolumeClaims,
  watches: [
    {
      resource: BUILTIN_RESOURCES.persistentVolumes,
      mapTo: (volume) => {
        const ref = volume.spec?.claimRef;
        return ref?.name ? [{ namespace: ref.namespace ?? '', name: ref.name }] : [];
      },
    },
    { resource: BUILTIN_RESOURCES.storageClasses, mapTo: (storageClass, _r: unknown, cache) => claimsOfClass(storageClass, cache) },
  ],
  reads: [BUILTIN_RESOURCES.pods],
  indexes: [podClaimIndex],
})
export class ClaimBinderReconciler implements Reconcile {
  private readonly writes: BinderWrites;

  constructor(
    private readonly client: Client,
    private readonly options: PersistentVolumeBinderOptions,
  ) {
    this.writes = new BinderWrites(client, new RateLimitedEvents(new EventRecorder(client, { component: PERSISTENT_VOLUME_EVENT_COMPONENT })));
  }

  async reconcile({ namespace = '', name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const claim = cache.get(BUILTIN_RESOURCES.persistentVolumeClaims, { namespace, name });
    if (!claim) return {};
    if (claim.metadata?.annotations?.[ANN_BIND_COMPLETED] === undefined) await this.syncUnbound(claim, cache);
    else await this.syncBound(claim, cache);
    return { requeueAfter: this.options.syncPeriodMs };
  }

  private async syncUnbound(claim: PersistentVolumeClaim, cache: CacheReader): Promise<void> {
    const volumeName = claim.spec?.volumeName;
    if (!volumeName) {
      const className = claimClass(claim);
      const storageClass = className ? cache.get(BUILTIN_RESOURCES.storageClasses, { name: className }) : undefined;
      const delayBinding = isDelayBindingClass(storageClass);
      const volume = findBestMatchForClaim(claim, cache.list(BUILTIN_RESOURCES.persistentVolumes), delayBinding);
      if (volume) {
        await this.writes.bind(volume, claim);
        return;
      }
      if (await this.assignDefaultClass(claim, cache)) return;
      if (delayBinding && !isDelayBindingProvisioning(claim)) {
        this.waitingForConsumer(claim, cache);
      } else if (className !== '') {
        await this.provision(claim, storageClass);
        return;
      } else {
        this.writes.claimEvent(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      }
      await this.writes.updateClaimStatus(claim, 'Pending');
      return;
    }

    const volume = cache.get(BUILTIN_RESOURCES.persistentVolumes, { name: volumeName });
    if (!volume) {
      // The user asked for a volume that does not exist (yet): wait for it.
      await this.writes.updateClaimStatus(claim, 'Pending');
      return;
    }
    if (!volume.spec?.claimRef) {
      const unfit = volumeUnfitFor(volume, claim);
      if (unfit !== undefined) {
        this.writes.claimEvent(claim, 'Warning', 'VolumeMismatch', `Cannot bind to requested volume "${volumeName}": ${unfit}`);
        await this.writes.updateClaimStatus(claim, 'Pending');
        return;
      }
      await this.writes.bind(volume, claim);
      return;
    }
    if (isVolumeBoundToClaim(volume, claim)) {
      await this.writes.bind(volume, claim);
      return;
    }
    if (claim.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER] !== undefined) {
      const ref = volume.spec.claimRef;
      throw new Error(
        `invalid binding of claim "${claimKey(claim)}" to volume "${volumeName}": volume already claimed by "${ref.namespace ?? ''}/${ref.name ?? ''}"`,
      );
    }
    // The user asked for a volume another claim holds: wait until it is free.
    await this.writes.updateClaimStatus(claim, 'Pending');
  }

  private async syncBound(claim: PersistentVolumeClaim, cache: CacheReader): Promise<void> {
    const volumeName = claim.spec?.volumeName;
    if (!volumeName) {
      await this.writes.updateClaimStatusWithEvent(
        claim,
        'Lost',
        'Warning',
        'ClaimLost',
        'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!',
      );
      return;
    }
    const volume = cache.get(BUILTIN_RESOURCES.persistentVolumes, { name: volumeName }) ?? (await this.liveVolume(volumeName));
    if (!volume) {
      await this.writes.updateClaimStatusWithEvent(
        claim,
        'Lost',
        'Warning',
        'ClaimLost',
        'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
      );
      return;
    }
    const ref = volume.spec?.claimRef;
    if (!ref || ref.uid === claim.metadata?.uid) {
      await this.writes.bind(volume, claim);
      return;
    }
    await this.writes.updateClaimStatusWithEvent(
      claim,
      'Lost',
      'Warning',
      'ClaimMisbound',
      'Two claims are bound to the same volume, this one is bound incorrectly',
    );
  }

  /** Lost is for good: a volume missing from a cache that may lag is looked up on the server first. */
  private async liveVolume(name: string): Promise<PersistentVolume | undefined> {
    try {
      return await this.client.persistentVolumes.get(name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Kubernetes' assignDefaultStorageClass: a claim that names no class gets the default one, once there is one. */
  private async assignDefaultClass(claim: PersistentVolumeClaim, cache: CacheReader): Promise<boolean> {
    if (claimHasClass(claim)) return false;
    const storageClass = defaultStorageClass(cache.list(BUILTIN_RESOURCES.storageClasses));
    if (!storageClass) return false;
    const clone = structuredClone<PersistentVolumeClaim>(claim);
    clone.spec = { ...clone.spec, storageClassName: storageClass.metadata?.name };
    await this.client.persistentVolumeClaims.update(clone, { namespace: claim.metadata?.namespace });
    return true;
  }

  /** WaitForFirstConsumer, or WaitForPodScheduled naming the claim's pods that wait for a node. */
  private waitingForConsumer(claim: PersistentVolumeClaim, cache: CacheReader): void {
    const pods = cache
      .byIndex<Pod>(BUILTIN_RESOURCES.pods, POD_CLAIM_INDEX, claimKey(claim))
      .filter((pod) => !isPodTerminated(pod) && !pod.spec.nodeName)
      .map((pod) => pod.metadata?.name ?? '');
    if (pods.length === 0) this.writes.claimEvent(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
    else if (pods.length === 1) this.writes.claimEvent(claim, 'Normal', 'WaitForPodScheduled', `waiting for pod ${pods[0]} to be scheduled`);
    else this.writes.claimEvent(claim, 'Normal', 'WaitForPodScheduled', `waiting for pods ${pods.join(',')} to be scheduled`);
  }

  /**
   * Kubernetes' provisionClaim with no in-tree provisioner: a class that does not exist, or one of
   * Kubernetes' own provisioners (none of which runs here), is a ProvisioningFailed event; any other
   * provisioner is external: the claim is annotated with it (both keys), which is what such a
   * provisioner waits for, and an ExternalProvisioning event says so.
   */
  private async provision(claim: PersistentVolumeClaim, storageClass: StorageClass | undefined): Promise<void> {
    if (!this.options.enableDynamicProvisioning) return;
    if (!storageClass) {
      this.writes.claimEvent(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${claimClass(claim)}" not found`);
      return;
    }
    const provisioner = storageClass.provisioner;
    if (provisioner.startsWith('kubernetes.io/')) {
      this.writes.claimEvent(claim, 'Warning', 'ProvisioningFailed', `no volume plugin matched name: ${provisioner}`);
      return;
    }
    const annotations = claim.metadata?.annotations ?? {};
    let annotated = claim;
    if (annotations[ANN_STORAGE_PROVISIONER] !== provisioner || annotations[ANN_BETA_STORAGE_PROVISIONER] !== provisioner) {
      const clone = structuredClone<PersistentVolumeClaim>(claim);
      clone.metadata = {
        ...clone.metadata,
        annotations: { ...annotations, [ANN_BETA_STORAGE_PROVISIONER]: provisioner, [ANN_STORAGE_PROVISIONER]: provisioner },
      };
      try {
        annotated = await this.client.persistentVolumeClaims.update(clone, { namespace: claim.metadata?.namespace });
      } catch (error) {
        this.writes.claimEvent(claim, 'Warning', 'ProvisioningFailed', `Error saving claim: ${error instanceof Error ? error.message : String(error)}`);
        throw error;
      }
    }
    this.writes.claimEvent(annotated, 'Normal', 'ExternalProvisioning', externalProvisioningMessage(provisioner));
  }
}
