import type { ApiObject, OwnerReference } from '@svc/api';
import type { ServedResource } from '@svc/client';
import type { SharedInformer } from '@svc/informers';
import { AbsentOwnerCache } from './absent-owner-cache';
import { OrphanedOwners } from './orphaned-owners';
import { groupOfApiVersion, sameGroup, specGroupName } from '@svc/machinery';
import { groupVersionOf } from './deletable-resources';

/** The finalizers the API server adds for `propagationPolicy` Orphan and Foreground. */
export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

const UID_INDEX = 'garbagecollector:uid';
const OWNER_UID_INDEX = 'garbagecollector:owner-uid';

/** One cached object and the resource type it is served as. */
export interface GraphNode {
  resource: ServedResource;
  object: ApiObject;
}

interface Monitor {
  resource: ServedResource;
  informer: SharedInformer<ApiObject>;
}

export function uidOf(obj: ApiObject): string {
  return obj.metadata?.uid ?? '';
}

export function ownerReferencesOf(obj: ApiObject): readonly OwnerReference[] {
  return obj.metadata?.ownerReferences ?? [];
}

export function hasFinalizer(obj: ApiObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

export function isBeingDeleted(obj: ApiObject): boolean {
  return Boolean(obj.metadata?.deletionTimestamp);
}

/** Being deleted in the foreground: it waits for its blocking dependents to go first. */
export function isDeletingDependents(obj: ApiObject): boolean {
  return isBeingDeleted(obj) && hasFinalizer(obj, FOREGROUND_FINALIZER);
}

/** Being deleted with a finalizer only the garbage collector removes. */
export function awaitsGarbageCollector(obj: ApiObject): boolean {
  return isBeingDeleted(obj) && (hasFinalizer(obj, FOREGROUND_FINALIZER) || hasFinalizer(obj, ORPHAN_FINALIZER));
}

/**
 * The owner -> dependents graph over the shared informers of every monitored resource type. It
 * keeps no copy of the objects: each monitored informer gets two indexes, by uid and by owner uid,
 * so an object is found by uid and an owner's dependents by its uid, whatever their types.
 * It also knows every served kind (an owner reference names a kind; a GET needs a resource).
 */
export class DependencyGraph {
  /** Owners verified absent, by the API server or by an observed deletion. */
  readonly absentOwners = new AbsentOwnerCache();
  /** Owners deleted with their dependents orphaned: a dependent seen late loses its reference, never itself. */
  readonly orphanedOwners = new OrphanedOwners();
  private readonly monitors = new Map<string, Monitor>();
  private kinds = new Map<string, ServedResource>();
  /**
   * The owner uids each object had when last seen, so that a change removing a reference still
   * wakes the owner it no longer names (an owner deleting in the foreground waits on it).
   */
  private readonly lastOwners = new Map<string, readonly string[]>();

  /** Starts finding objects in `informer`'s cache, indexing it by uid and owner uid. */
  watch(id: string, resource: ServedResource, informer: SharedInformer<ApiObject>): void {
    const present = new Set(informer.indexer.indexNames());
    if (!present.has(UID_INDEX)) informer.addIndexers({ [UID_INDEX]: (obj) => (obj.metadata?.uid ? [obj.metadata.uid] : []) });
    if (!present.has(OWNER_UID_INDEX)) informer.addIndexers({ [OWNER_UID_INDEX]: (obj) => ownerReferencesOf(obj).map((r) => r.uid) });
    this.monitors.set(id, { resource, informer });
  }

  unwatch(id: string): void {
    this.monitors.delete(id);
  }

  isWatched(id: string): boolean {
    return this.monitors.has(id);
  }

  /** The monitored resource types by id. */
  watched(): Map<string, ServedResource> {
    return new Map([...this.monitors].map(([id, m]) => [id, m.resource]));
  }

  /**
   * A monitored cache of `resource`'s type has its first list: the deletion of any of its objects
   * from then on reaches the graph.
   */
  observes(resource: ServedResource): boolean {
    for (const m of this.monitors.values()) {
      if (m.resource.resource === resource.resource && sameGroup(m.resource.group, resource.group)) return m.informer.hasSynced();
    }
    return false;
  }

  /** Every monitored cache has its first list: the graph knows every object (as of then). */
  synced(): boolean {
    return [...this.monitors.values()].every((m) => m.informer.hasSynced());
  }

  /**
   * Takes the served resource types as the kind -> resource mapping. Kinds of group versions whose
   * discovery failed keep their previous mapping, as Kubernetes keeps them in a partial discovery.
   */
  setKinds(resources: readonly ServedResource[], failedGroupVersions: ReadonlySet<string>): void {
    const next = new Map<string, ServedResource>();
    for (const [key, r] of this.kinds) if (failedGroupVersions.has(groupVersionOf(r))) next.set(key, r);
    for (const r of resources) next.set(kindKey(r.group, r.kind), r);
    this.kinds = next;
  }

  /**
   * Whether the last discovery found `resource` of `group` served (`widgets` of `example.com`, as a
   * CustomResourceDefinition's name `widgets.example.com` says).
   */
  serves(group: string, resource: string): boolean {
    const wanted = specGroupName(group);
    for (const r of this.kinds.values()) if (r.resource === resource && specGroupName(r.group) === wanted) return true;
    return false;
  }

  /**
   * The resource an owner reference's kind is served as, at its group's preferred version: the uid
   * names the object whatever version the reference was written in.
   */
  resourceFor(apiVersion: string, kind: string): ServedResource | undefined {
    return this.kinds.get(kindKey(groupOfApiVersion(apiVersion), kind));
  }

  /** The cached object with `uid`, in any monitored type. */
  find(uid: string, prefer?: ServedResource): GraphNode | undefined {
    if (!uid) return undefined;
    const first = prefer ? [...this.monitors.values()].find((m) => m.resource === prefer) : undefined;
    for (const m of first ? [first, ...this.monitors.values()] : this.monitors.values()) {
      const [object] = m.informer.indexer.byIndex(UID_INDEX, uid);
      if (object) return { resource: m.resource, object };
    }
    return undefined;
  }

  /** The cached objects whose ownerReferences name `uid`, in every monitored type and namespace. */
  dependents(uid: string): GraphNode[] {
    const out: GraphNode[] = [];
    for (const m of this.monitors.values()) for (const object of m.informer.indexer.byIndex(OWNER_UID_INDEX, uid)) out.push({ resource: m.resource, object });
    return out;
  }

  /**
   * The cached owner `ref` resolves to from a dependent in `namespace`: same uid, and the kind, name
   * and (for a namespaced owner) namespace the reference implies. A uid found elsewhere does not count.
   */
  ownerInCache(ref: OwnerReference, namespace: string | undefined): GraphNode | undefined {
    const owner = this.find(ref.uid);
    if (!owner) return undefined;
    const meta = owner.object.metadata ?? {};
    if (!sameGroup(owner.resource.group, groupOfApiVersion(ref.apiVersion)) || owner.resource.kind !== ref.kind || meta.name !== ref.name) return undefined;
    if (owner.resource.namespaced && (meta.namespace ?? '') !== (namespace ?? '')) return undefined;
    return owner;
  }

  /**
   * The uids to sync after a change of `obj` (of type `resource`) was seen, Kubernetes' graph
   * builder rules on a cache:
   * - the object itself, when it waits for the collector (orphan or foreground finalizer) or names
   *   an owner the cache does not show as existing and solid (absent, elsewhere, or itself deleting
   *   in the foreground): that owner must be verified and the object deleted or unlinked;
   * - its dependents, when it is gone (they may now be garbage) or deleting in the foreground;
   * - its owners (present and former) that wait for the collector: they wait on their dependents.
   */
  wakeups(resource: ServedResource, obj: ApiObject): string[] {
    const uid = uidOf(obj);
    if (!uid) return [];
    const wake = new Set<string>();
    const previous = this.lastOwners.get(uid) ?? [];
    // The cache may be ahead of the change being handled: judge by what it holds now.
    const node = this.find(uid, resource);
    const current = node?.object ?? obj;
    const refs = ownerReferencesOf(current);
    if (node) {
      if (refs.length > 0)
        this.lastOwners.set(
          uid,
          refs.map((r) => r.uid),
        );
      else this.lastOwners.delete(uid);
      if (awaitsGarbageCollector(current)) wake.add(uid);
      if (isDeletingDependents(current)) for (const dep of this.dependents(uid)) wake.add(uidOf(dep.object));
      if (!isBeingDeleted(current) && refs.some((ref) => !this.isSolidInCache(ref, current))) wake.add(uid);
    } else {
      this.lastOwners.delete(uid);
      const dependents = this.dependents(uid);
      if (dependents.length > 0) {
        const meta = obj.metadata ?? {};
        this.absentOwners.add({
          uid,
          group: specGroupName(resource.group),
          kind: resource.kind,
          name: meta.name ?? '',
          namespace: resource.namespaced ? (meta.namespace ?? '') : '',
        });
      }
      for (const dep of dependents) wake.add(uidOf(dep.object));
    }
    for (const ownerUid of new Set([...previous, ...refs.map((r) => r.uid)])) {
      const owner = this.find(ownerUid);
      if (owner && awaitsGarbageCollector(owner.object)) wake.add(ownerUid);
    }
    return [...wake];
  }

  /** Forgets the remembered owners of objects no longer cached (deleted while nothing watched). */
  prune(): void {
    for (const uid of this.lastOwners.keys()) if (!this.find(uid)) this.lastOwners.delete(uid);
  }

  private isSolidInCache(ref: OwnerReference, dependent: ApiObject): boolean {
    const owner = this.ownerInCache(ref, dependent.metadata?.namespace);
    return owner !== undefined && !isDeletingDependents(owner.object);
  }
}

/** Keyed by the group's specification name: a reference through either name of a group finds its kind. */
function kindKey(group: string, kind: string): string {
  return `${specGroupName(group)}/${kind}`;
}
