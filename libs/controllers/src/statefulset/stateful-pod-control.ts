import type { ApiObject, OwnerReference, PersistentVolumeClaimTemplate, Pod, StatefulSet } from '@svc/api';
import type { Client, ResourceClient } from '@svc/client';
import { errorMessage, isAlreadyExists, isNotFound } from '@svc/machinery';
import type { MetaObject } from '@svc/runtime';
import type { RateLimitedEvents } from '../common/rate-limited-events';
import { podClaims, podOrdinal, STATEFUL_SET_KIND, updateIdentity } from './stateful-pod-identity';

/** How long a claims resource found not served is not asked again. */
const UNSERVED_RECHECK_MS = 60_000;

/** Kubernetes' strings.Title of a one-word verb. */
const title = (verb: string) => verb[0].toUpperCase() + verb.slice(1);

/**
 * The writes of the StatefulSet controller to pods and claims, each reported with the event
 * Kubernetes' StatefulPodControl records: `SuccessfulCreate` "create Pod web-0 in StatefulSet web
 * successful", `FailedCreate` "create Pod web-0 in StatefulSet web failed error: ...", and so for
 * delete and update.
 *
 * Claims (from volumeClaimTemplates) are written only while the server serves
 * PersistentVolumeClaims: a create answered 404 means the resource is not served, and then the
 * pod is made without its claims (its volumes still name them, as Kubernetes sets them), the
 * resource asked again a minute later.
 */
export class StatefulPodControl {
  private readonly pods: ResourceClient<Pod>;
  private readonly claims: ResourceClient<ApiObject>;
  private claimsUnservedUntil = 0;

  constructor(
    client: Client,
    private readonly events: RateLimitedEvents,
  ) {
    this.pods = client.pods;
    this.claims = client.dynamic({ group: '', version: 'v1', resource: 'persistentvolumeclaims', namespaced: true, kind: 'PersistentVolumeClaim' });
  }

  /**
   * Creates the pod's missing claims, then the pod; true when the server made it. A pod already
   * there is no failure of its own: the cache will show it.
   */
  async createPod(set: StatefulSet, pod: Pod): Promise<boolean> {
    await this.createMissingClaims(set, pod);
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
   * (Kubernetes' createPersistentVolumeClaims): by the set when `whenDeleted` is Delete.
   */
  async createMissingClaims(set: StatefulSet, pod: Pod): Promise<void> {
    const templates = set.spec.volumeClaimTemplates ?? [];
    if (templates.length === 0 || Date.now() < this.claimsUnservedUntil) return;
    for (const claim of podClaims(set, podOrdinal(pod)).values()) {
      if (!(await this.createClaim(set, pod, claim))) return;
    }
  }

  /**
   * Before a scale-down deletes the pod, makes it an owner of its claims when the retention policy
   * deletes claims on scale-down, so that the garbage collector removes them with it.
   */
  async releaseClaimsWithPod(set: StatefulSet, pod: Pod): Promise<void> {
    if (set.spec.persistentVolumeClaimRetentionPolicy?.whenScaled !== 'Delete' || Date.now() < this.claimsUnservedUntil) return;
    const owner: OwnerReference = { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' };
    for (const claim of podClaims(set, podOrdinal(pod)).values()) {
      const name = claim.metadata?.name ?? '';
      try {
        await this.claims.patch(name, { metadata: { ownerReferences: [owner] } } as never, 'strategic', { namespace: set.metadata?.namespace });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }

  /** False when claims are not served. */
  private async createClaim(set: StatefulSet, pod: Pod, claim: PersistentVolumeClaimTemplate): Promise<boolean> {
    const object = { ...claim, apiVersion: 'v1', kind: 'PersistentVolumeClaim' } as ApiObject & MetaObject;
    if (set.spec.persistentVolumeClaimRetentionPolicy?.whenDeleted === 'Delete') {
      object.metadata = {
        ...object.metadata,
        ownerReferences: [{ ...STATEFUL_SET_KIND, name: set.metadata?.name ?? '', uid: set.metadata?.uid ?? '' }],
      };
    }
    try {
      await this.claims.create(object, { namespace: set.metadata?.namespace });
    } catch (error) {
      if (isAlreadyExists(error)) return true;
      if (isNotFound(error)) {
        this.claimsUnservedUntil = Date.now() + UNSERVED_RECHECK_MS;
        return false;
      }
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
    return true;
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
