import type { PersistentVolume, PersistentVolumeClaim } from '@svc/api';
import type { Client } from '@svc/client';
import { jsonEqual, metaTime } from '@svc/machinery';
import type { EventType, MetaObject } from '@svc/runtime';
import type { RateLimitedEvents } from '../common/rate-limited-events';
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER } from './volume-annotations';
import { claimReference, isVolumeBoundToClaim, refersToClaim } from './volume-matching';

/** The event source of the persistent volume controller, as Kubernetes names it. */
export const PERSISTENT_VOLUME_EVENT_COMPONENT = 'persistentvolume-controller';

function withAnnotation<T extends { metadata?: { annotations?: Record<string, string> } }>(object: T, key: string, value: string): void {
  object.metadata = { ...object.metadata, annotations: { ...object.metadata?.annotations, [key]: value } };
}

/** Events name the object with its kind (cached objects may come without one). */
export function claimRef(claim: PersistentVolumeClaim): MetaObject {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: claim.metadata };
}

export function volumeRef(volume: PersistentVolume): MetaObject {
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: volume.metadata };
}

/**
 * The writes both halves of the persistent volume controller make (Kubernetes' bind, unbind and
 * status updates), each a full update on the object's resourceVersion: a cache that lagged a write
 * of someone else gets a conflict and the sync is retried, so no two claims ever take one volume.
 * Each returns the object as the server now has it (or as it was, when nothing had to change).
 */
export class BinderWrites {
  constructor(
    private readonly client: Client,
    private readonly events: RateLimitedEvents,
  ) {}

  claimEvent(claim: PersistentVolumeClaim, type: EventType, reason: string, message: string): void {
    this.events.emit(claimRef(claim), type, reason, message);
  }

  volumeEvent(volume: PersistentVolume, type: EventType, reason: string, message: string): void {
    this.events.emit(volumeRef(volume), type, reason, message);
  }

  /** Binds both ways and marks both Bound (Kubernetes' bind): the volume first, so a crash leaves it reserved. */
  async bind(volume: PersistentVolume, claim: PersistentVolumeClaim): Promise<void> {
    let bound = await this.bindVolumeToClaim(volume, claim);
    bound = await this.updateVolumePhase(bound, 'Bound');
    const boundClaim = await this.bindClaimToVolume(claim, bound);
    await this.updateClaimStatus(boundClaim, 'Bound', bound);
  }

  /** Points the volume's claimRef at the claim (with its uid), marking it bound by the controller unless it was reserved for it. */
  async bindVolumeToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): Promise<PersistentVolume> {
    const setByController = !isVolumeBoundToClaim(volume, claim);
    const clone = structuredClone<PersistentVolume>(volume);
    let dirty = false;
    if (!refersToClaim(volume, claim)) {
      clone.spec = { ...clone.spec, claimRef: claimReference(claim) };
      dirty = true;
    }
    if (setByController && clone.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER] === undefined) {
      withAnnotation(clone, ANN_BOUND_BY_CONTROLLER, 'yes');
      dirty = true;
    }
    return dirty ? this.client.persistentVolumes.update(clone) : volume;
  }

  /** Sets the claim's volumeName and the bind-completed annotation (and bound-by-controller when the controller chose the volume). */
  async bindClaimToVolume(claim: PersistentVolumeClaim, volume: PersistentVolume): Promise<PersistentVolumeClaim> {
    const name = volume.metadata?.name ?? '';
    const clone = structuredClone<PersistentVolumeClaim>(claim);
    let dirty = false;
    if (claim.spec?.volumeName !== name) {
      clone.spec = { ...clone.spec, volumeName: name };
      if (clone.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER] === undefined) withAnnotation(clone, ANN_BOUND_BY_CONTROLLER, 'yes');
      dirty = true;
    }
    if (clone.metadata?.annotations?.[ANN_BIND_COMPLETED] === undefined) {
      withAnnotation(clone, ANN_BIND_COMPLETED, 'yes');
      dirty = true;
    }
    return dirty ? this.client.persistentVolumeClaims.update(clone, { namespace: claim.metadata?.namespace }) : claim;
  }

  /**
   * The volume's phase (and message), with the time of the change (lastPhaseTransitionTime, GA in
   * 1.31); nothing is written when neither changes.
   */
  async updateVolumePhase(volume: PersistentVolume, phase: string, message = ''): Promise<PersistentVolume> {
    const status = volume.status ?? {};
    if (status.phase === phase && (status.message ?? '') === message) return volume;
    const clone = structuredClone<PersistentVolume>(volume);
    clone.status = { ...status, phase, message: message || undefined };
    if (!message) delete clone.status.message;
    if (status.phase !== phase) clone.status.lastPhaseTransitionTime = metaTime();
    return this.client.persistentVolumes.updateStatus(clone);
  }

  /** The phase change with an event, both only when the phase changes (Kubernetes' updateVolumePhaseWithEvent). */
  async updateVolumePhaseWithEvent(volume: PersistentVolume, phase: string, type: EventType, reason: string, message: string): Promise<PersistentVolume> {
    if (volume.status?.phase === phase) return volume;
    const updated = await this.updateVolumePhase(volume, phase, message);
    this.volumeEvent(updated, type, reason, message);
    return updated;
  }

  /** The claim's phase, and the access modes and capacity of its volume (cleared without one). */
  async updateClaimStatus(claim: PersistentVolumeClaim, phase: string, volume?: PersistentVolume): Promise<PersistentVolumeClaim> {
    const status = { ...claim.status };
    let dirty = false;
    if (status.phase !== phase) {
      status.phase = phase;
      dirty = true;
    }
    if (volume === undefined) {
      if (status.accessModes !== undefined) {
        delete status.accessModes;
        dirty = true;
      }
      if (status.capacity !== undefined) {
        delete status.capacity;
        dirty = true;
      }
    } else {
      const modes = volume.spec?.accessModes;
      if (!jsonEqual(status.accessModes ?? null, modes ?? null)) {
        status.accessModes = modes ? [...modes] : undefined;
        if (!modes) delete status.accessModes;
        dirty = true;
      }
      if (!jsonEqual(status.capacity?.storage ?? null, volume.spec?.capacity?.storage ?? null)) {
        status.capacity = { ...volume.spec?.capacity };
        dirty = true;
      }
    }
    if (!dirty) return claim;
    return this.client.persistentVolumeClaims.updateStatus({ ...structuredClone(claim), status }, { namespace: claim.metadata?.namespace });
  }

  /** The phase change with an event, both only when the phase changes. */
  async updateClaimStatusWithEvent(claim: PersistentVolumeClaim, phase: string, type: EventType, reason: string, message: string): Promise<void> {
    if (claim.status?.phase === phase) return;
    const updated = await this.updateClaimStatus(claim, phase);
    this.claimEvent(updated, type, reason, message);
  }

  /**
   * Undoes the controller's half of a binding the claim did not take (Kubernetes' unbindVolume): a
   * volume the controller bound loses its claimRef; one reserved by the user keeps it without the uid.
   * Either is Available again.
   */
  async unbindVolume(volume: PersistentVolume): Promise<void> {
    const clone = structuredClone<PersistentVolume>(volume);
    const annotations = { ...clone.metadata?.annotations };
    if (annotations[ANN_BOUND_BY_CONTROLLER] !== undefined) {
      delete clone.spec?.claimRef;
      delete annotations[ANN_BOUND_BY_CONTROLLER];
      clone.metadata = { ...clone.metadata, annotations };
    } else if (clone.spec?.claimRef) {
      clone.spec.claimRef = { ...clone.spec.claimRef };
      delete clone.spec.claimRef.uid;
    }
    const updated = await this.client.persistentVolumes.update(clone);
    await this.updateVolumePhase(updated, 'Available');
  }
}
