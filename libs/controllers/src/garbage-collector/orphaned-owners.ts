/**
 * The uids of owners whose deletion orphaned their dependents: the collector removed their `orphan`
 * finalizer. A dependent that names one of them and shows up only after it went (its create was in
 * flight when the owner was deleted, or the cache showed it too late to be orphaned with the others)
 * loses the reference instead of being collected: an orphan delete never deletes a dependent. A uid
 * is never reused, so a remembered uid stays true; the least recently used go first past the capacity.
 * The memory is the process's own: a dependent that shows up after a restart of the collector is
 * collected as Kubernetes collects any dependent of an absent owner.
 */
export class OrphanedOwners {
  private readonly uids = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  add(uid: string): void {
    this.uids.delete(uid);
    this.uids.add(uid);
    if (this.uids.size > this.capacity) this.uids.delete(this.uids.values().next().value as string);
  }

  has(uid: string): boolean {
    return this.uids.has(uid);
  }

  get size(): number {
    return this.uids.size;
  }
}
