import type { PersistentVolumeClaim, PersistentVolumeClaimTemplate, Pod, StatefulSet } from '@svc/api';
import type { Client, ResourceClient } from '@svc/client';
import { errorMessage, isAlreadyExists, isNotFound } from '@svc/machinery';
import type { MetaObject } from '@svc/runtime';
import type { RateLimitedEvents } from '../common/rate-limited-events';
import { claimIsStale, retentionOwnerReferences } from './claim-retention';
import { podClaims, podOrdinal, STATEFUL_SET_KIND, updateIdentity } from './stateful-pod-identity';

/** A claim as the cache has it (undefined: not there). */
export type ClaimLookup = (namespace: string, name: string) => PersistentVolumeClaim | undefined;

/** Kubernetes' strings.Title of a one-word verb. */
const title = (verb: string) => verb[0].toUpperCase() + verb.slice(1);

/**
 * The writes of the StatefulSet controller to pods and claims, each reported with the event
 * Kubernetes' StatefulPodControl records: `SuccessfulCreate` "create Pod web-0 in StatefulSet web
 * successful", `FailedCreate` "create Pod web-0 in StatefulSet web failed error: ...", and so for
 * delete and update.
 *
 * Claims (from volumeClaimTemplates) are made before their pod and carry the owner references the
 * set's persistentVolumeClaimRetentionPolicy asks for, so the garbage collector removes them with
 * the set (`whenDeleted: Delete`) or with a pod scaled away (`whenScaled: Delete`), and keeps them
 * otherwise: a pod made again for its ordinal mounts the same claim.
 */
export class StatefulPodControl {
  private readonly pods: ResourceClient<Pod>;
  private readonly claims: ResourceClient<PersistentVolumeClaim>;

  constructor(
    client: Client,
    private readonly events: RateLimitedEvents,
  ) {
    this.pods = client.pods;
    this.claims = client.persistentVolumeClaims;
  }

  /**
   * Creates the pod's missing claims, then the pod; true when the server made it. A pod already
   * there is no failure of its own: the cache will show it.
   */
  async createPod(set: StatefulSet, pod: Pod, lookup: ClaimLookup): Promise<boolean> {
    await this.createMissingClaims(set, pod, lookup);
    try {
      await this.pods.create(pod, { namespace: set.metadata?.namespace });
    } catch (error) {
      if (isAlreadyExists(error)) return false;
      this.podEvent('create', set, pod, error);
      throw error;
    }
    this.podEvent('create', set, pod);
    return true;
  }

  /** Deletes the pod; true when the server took the deletion, false when it was already gone. */
  async deletePod(set: StatefulSet, pod: Pod): Promise<boolean> {
    try {
      await this.pods.delete(pod.metadata?.name ?? '', { namespace: pod.metadata?.namespace, preconditions: { uid: pod.metadata?.uid } });
    } catch (error) {
      if (isNotFound(error)) return false;
      this.podEvent('delete', set, pod, error);
      throw error;
    }
    this.podEvent('delete', set, pod);
    return true;
  }

  /** Gives a pod whose identity labels went astray those of its ordinal (Kubernetes' UpdateStatefulPod); true when written. */
  async updatePodIdentity(set: StatefulSet, pod: Pod): Promise<boolean> {
    const copy = structuredClone(pod);
    updateIdentity(set, copy);
    try {
      await this.pods.update(copy, { namespace: set.metadata?.namespace });
    } catch (error) {
      if (isNotFound(error)) return false;
      this.podEvent('update', set, pod, error);
      throw error;
    }
    this.podEvent('update', set, pod);
    return true;
  }

  /**
   * Creates the claims of the pod that do not exist, owned as the retention policy says
   * (Kubernetes' createPersistentVolumeClaims).
   */
  async createMissingClaims(set: StatefulSet, pod: Pod, lookup: ClaimLookup): Promise<void> {
    const namespace = set.metadata?.namespace ?? '';
    for (const claim of podClaims(set, podOrdinal(pod)).values()) {
      if (lookup(namespace, claim.metadata?.name ?? '')) continue;
      await this.createClaim(set, pod, claim);
    }
  }

  /**
   * Whether a claim of the pod is still owned by an earlier pod of its ordinal that a scale-down
   * deletes with it (Kubernetes' PodClaimIsStale): the pod must not be made on it.
   */
  podClaimIsStale(set: StatefulSet, pod: Pod, lookup: ClaimLookup): boolean {
    const namespace = set.metadata?.namespace ?? '';
    for (const claim of podClaims(set, podOrdinal(pod)).values()) {
      const current = lookup(namespace, claim.metadata?.name ?? '');
      if (current && claimIsStale(set, pod, current)) return true;
    }
    return false;
  }

  /**
   * Gives the pod's existing claims the owner references the retention policy asks for now
   * (Kubernetes' UpdatePodClaimForRetentionPolicy): `scaledDown` for a pod beyond the range, about
   * to be deleted, whose claims then go with it under `whenScaled: Delete`.
   */
  async updateClaimsForRetention(set: StatefulSet, pod: Pod, scaledDown: boolean, lookup: ClaimLookup): Promise<void> {
    const namespace = set.metadata?.namespace ?? '';
    for (const template of podClaims(set, podOrdinal(pod)).values()) {
      const claim = lookup(namespace, template.metadata?.name ?? '');
      if (!claim) continue;
      const ownerReferences = retentionOwnerReferences(set, pod, claim, scaledDown);
      if (!ownerReferences) continue;
      try {
        await this.claims.update({ ...structuredClone(claim), metadata: { ...structuredClone(claim.metadata), ownerReferences } }, { namespace });
      } catch (error) {
        // Gone: nothing to own. A conflict (changed since the cache saw it) is retried.
        if (!isNotFound(error)) throw error;
      }
    }
  }

  private async createClaim(set: StatefulSet, pod: Pod, claim: PersistentVolumeClaimTemplate): Promise<void> {
    const object = { ...structuredClone(claim), apiVersion: 'v1', kind: 'PersistentVolumeClaim' } as PersistentVolumeClaim;
    const ownerReferences = retentionOwnerReferences(set, pod, object, false);
    if (ownerReferences) object.metadata = { ...object.metadata, ownerReferences };
    try {
      await this.claims.create(object, { namespace: set.metadata?.namespace });
    } catch (error) {
      if (isAlreadyExists(error)) return;
      this.events.emit(
        this.subject(set),
        'Warning',
        'FailedCreate',
        `create Claim ${object.metadata?.name} for Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} failed error: ${errorMessage(error)}`,
      );
      throw error;
    }
    this.events.emit(
      this.subject(set),
      'Normal',
      'SuccessfulCreate',
      `create Claim ${object.metadata?.name} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} success`,
    );
  }

  private podEvent(verb: 'create' | 'delete' | 'update', set: StatefulSet, pod: Pod, error?: unknown): void {
    const what = `${verb} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name}`;
    if (error === undefined) this.events.emit(this.subject(set), 'Normal', `Successful${title(verb)}`, `${what} successful`);
    else this.events.emit(this.subject(set), 'Warning', `Failed${title(verb)}`, `${what} failed error: ${errorMessage(error)}`);
  }

  /** Cached objects may lack their kind; the Event names it. */
  private subject(set: StatefulSet): MetaObject {
    return { ...STATEFUL_SET_KIND, metadata: set.metadata };
  }
}
