/** The coordinates an owner was verified absent under: uid alone is not enough, a reference names where to look. */
export interface OwnerCoordinates {
  uid: string;
  group: string;
  kind: string;
  name: string;
  /** `''` for a cluster-scoped owner. */
  namespace: string;
}

/**
 * Owners the API server said do not exist (or exist with another uid), least recently used first
 * out, so that the dependents of one deleted owner cost one GET between them and not one each.
 * A uid is never reused, so an absence once verified stays true.
 */
export class AbsentOwnerCache {
  private readonly entries = new Set<string>();

  constructor(private readonly capacity = 500) {}

  has(owner: OwnerCoordinates): boolean {
    const key = keyOf(owner);
    if (!this.entries.has(key)) return false;
    this.entries.delete(key);
    this.entries.add(key);
    return true;
  }

  add(owner: OwnerCoordinates): void {
    const key = keyOf(owner);
    this.entries.delete(key);
    this.entries.add(key);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.values().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}

function keyOf(o: OwnerCoordinates): string {
  return JSON.stringify([o.uid, o.group, o.kind, o.name, o.namespace]);
}
