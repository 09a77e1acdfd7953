import type { ControllerRevision } from '@svc/api';
import { BUILTIN_RESOURCES, type Client, type ResourceClient } from '@svc/client';
import { isAlreadyExists, isConflict, isInvalid, isNotFound, type LabelQuery } from '@svc/machinery';
import { controllerReference, getControllerOf, type CacheReader, type MetaObject } from '@svc/runtime';
import { controllerRevisionName, hashControllerRevision, type OwnerKind } from './revision-hash';
import { equalRevision } from './revision-order';

/** Names tried after collisions before a create gives up (Kubernetes tries forever; a bound keeps a bug from spinning). */
const MAX_COLLISIONS = 100;

/** Conflicts retried by a renumbering before it gives up (client-go's retry.DefaultBackoff allows 4 tries). */
const UPDATE_ATTEMPTS = 4;

/** What a create made, and the collision count the owner's status records from now on. */
export interface CreatedRevision {
  revision: ControllerRevision;
  collisionCount: number;
}

/**
 * The ControllerRevisions of a workload controller (Kubernetes' history.Interface): reads come from
 * the reconcile's cache, writes go to the API server. Shared by the StatefulSet and DaemonSet
 * controllers, which keep one revision per template they have run.
 */
export class ControllerHistory {
  private readonly revisions: ResourceClient<ControllerRevision>;

  constructor(client: Client) {
    this.revisions = client.controllerRevisions;
  }

  /**
   * The cached revisions of the owner's namespace that match `selector` and that the owner controls
   * or no one does (orphans it may adopt), as Kubernetes' ListControllerRevisions.
   */
  list(cache: CacheReader, owner: MetaObject, selector: LabelQuery): ControllerRevision[] {
    const namespace = owner.metadata?.namespace ?? '';
    return cache.list(BUILTIN_RESOURCES.controllerRevisions, { namespace, labelSelector: selector }).filter((r) => {
      const ref = getControllerOf(r);
      return ref === undefined || ref.uid === owner.metadata?.uid;
    });
  }

  /**
   * Creates `revision` for `owner`, named from its data's hash salted by `collisionCount`. When the
   * name is taken by a revision with other data, the count goes up and the next name is tried; when
   * it is taken by equal data, that revision is the answer (Kubernetes' CreateControllerRevision).
   */
  async create(owner: MetaObject, revision: ControllerRevision, collisionCount: number): Promise<CreatedRevision> {
    const namespace = owner.metadata?.namespace ?? '';
    let count = collisionCount;
    for (let attempt = 0; attempt <= MAX_COLLISIONS; attempt++) {
      const name = controllerRevisionName(owner.metadata?.name ?? '', hashControllerRevision(revision.data, count));
      const candidate: ControllerRevision = { ...revision, metadata: { ...revision.metadata, name, namespace } };
      try {
        return { revision: await this.revisions.create(candidate, { namespace }), collisionCount: count };
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
      const existing = await this.revisions.get(name, { namespace });
      if (equalRevision(existing, candidate)) return { revision: existing, collisionCount: count };
      count++;
    }
    throw new Error(`no free name for a ControllerRevision of ${namespace}/${owner.metadata?.name} after ${MAX_COLLISIONS} hash collisions`);
  }

  /**
   * Gives `revision` the number `next` (an old template made current again becomes the newest
   * revision), retrying conflicts on the server's current object (Kubernetes' UpdateControllerRevision).
   */
  async renumber(revision: ControllerRevision, next: number): Promise<ControllerRevision> {
    const namespace = revision.metadata?.namespace ?? '';
    let current = revision;
    for (let attempt = 1; ; attempt++) {
      if (current.revision === next) return current;
      try {
        return await this.revisions.update({ ...current, revision: next }, { namespace });
      } catch (error) {
        if (!isConflict(error) || attempt >= UPDATE_ATTEMPTS) throw error;
        current = await this.revisions.get(current.metadata?.name ?? '', { namespace });
      }
    }
  }

  /** Deletes `revision`; one already gone is no failure. */
  async delete(revision: ControllerRevision): Promise<void> {
    try {
      await this.revisions.delete(revision.metadata?.name ?? '', { namespace: revision.metadata?.namespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /**
   * Makes `owner` the controller of an orphaned revision. The patch carries the revision's uid, so a
   * revision deleted and made again under the same name is refused (Kubernetes' AdoptControllerRevision).
   */
  async adopt(owner: MetaObject, ownerKind: OwnerKind, revision: ControllerRevision): Promise<ControllerRevision> {
    const controller = getControllerOf(revision);
    if (controller) throw new Error(`attempt to adopt revision ${revision.metadata?.name} owned by ${controller.kind} ${controller.name}`);
    const patch = { metadata: { ownerReferences: [controllerReference(owner, ownerKind)], uid: revision.metadata?.uid } };
    return this.revisions.patch(revision.metadata?.name ?? '', patch as never, 'strategic', { namespace: revision.metadata?.namespace });
  }

  /** Removes `owner`'s reference from a revision; one gone, or no longer owned, needs none (Kubernetes' ReleaseControllerRevision). */
  async release(owner: MetaObject, revision: ControllerRevision): Promise<void> {
    const patch = { metadata: { ownerReferences: [{ $patch: 'delete', uid: owner.metadata?.uid }], uid: revision.metadata?.uid } };
    try {
      await this.revisions.patch(revision.metadata?.name ?? '', patch as never, 'strategic', { namespace: revision.metadata?.namespace });
    } catch (error) {
      if (isNotFound(error) || isInvalid(error)) return;
      throw error;
    }
  }
}
