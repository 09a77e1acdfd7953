import { randomInt } from 'node:crypto';
import { isStorageError, objectStorageKey, prefixKey, type Storage } from '@svc/storage';

/** The group under which the server keeps records of its own that no API serves. */
export const INTERNAL_GROUP = 'internal.svc.io';

/** What holds an allocated value: a Service, named and by uid. */
export interface AllocationOwner {
  namespace: string;
  name: string;
  uid: string;
}

interface AllocationRecord {
  apiVersion: 'v1';
  kind: 'Allocation';
  metadata: { name: string; uid: string; resourceVersion?: string; creationTimestamp: string };
  owner: AllocationOwner;
}

export type AllocationFailure = 'Allocated' | 'NotInRange' | 'Full';

/** Why a value could not be allocated, in the words of Kubernetes' allocators. */
export class AllocationError extends Error {
  constructor(
    readonly reason: AllocationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** The values one allocator hands out: a range of addresses or ports, by offset. */
export interface AllocationRange {
  readonly size: number;
  at(offset: number): string;
  offsetOf(value: string): number | undefined;
  /** Kubernetes' text for a value outside the range. */
  notInRangeMessage(value: string): string;
}

/**
 * Values (cluster IPs, node ports) allocated one storage record each, created with the store's
 * create-if-absent: two API servers on one store, or fifty concurrent creates in one, can never
 * hold one value twice. The records outlive a restart; `repair` reconciles them with their owners.
 *
 * Values picked dynamically come from the upper band of the range first, as Kubernetes keeps the
 * lower band (1/16 of the range, 16 to 256 values) for values requested by name.
 */
export class AllocationStore {
  private readonly prefix: string;
  private readonly staticBand: number;

  /**
   * `resource` names the records' key space (`serviceipallocations`); `noun` is what the values are
   * called in messages (`IP`, `port`).
   */
  constructor(
    private readonly storage: Storage,
    private readonly storePrefix: string,
    private readonly resource: string,
    private readonly noun: string,
    readonly range: AllocationRange,
  ) {
    this.prefix = prefixKey({ prefix: storePrefix, group: INTERNAL_GROUP, resource });
    this.staticBand = Math.min(Math.max(16, Math.floor(range.size / 16)), 256, range.size);
  }

  /** Takes `value` for `owner`; fails when it is outside the range or held by another owner. */
  async allocate(value: string, owner: AllocationOwner): Promise<void> {
    if (this.range.offsetOf(value) === undefined) throw new AllocationError('NotInRange', this.range.notInRangeMessage(value));
    if (!(await this.tryCreate(value, owner))) {
      const holder = await this.holder(value);
      if (holder?.uid !== owner.uid) throw new AllocationError('Allocated', `provided ${this.noun} is already allocated`);
    }
  }

  /** Takes a free value for `owner`. */
  async allocateNext(owner: AllocationOwner): Promise<string> {
    const size = this.range.size;
    const bands: Array<[number, number]> =
      size > this.staticBand
        ? [
            [this.staticBand, size],
            [0, this.staticBand],
          ]
        : [[0, size]];
    for (const [from, to] of bands) {
      const span = to - from;
      const start = randomInt(span);
      for (let i = 0; i < span; i++) {
        const value = this.range.at(from + ((start + i) % span));
        if (await this.tryCreate(value, owner)) return value;
      }
    }
    throw new AllocationError('Full', 'range is full');
  }

  /** Whether `value` is held, whether or not it is in the current range. */
  async isAllocated(value: string): Promise<boolean> {
    return (await this.holder(value)) !== undefined;
  }

  /** Frees `value` if `owner` (by uid) holds it; a value held by another owner stays. */
  async release(value: string, owner: Pick<AllocationOwner, 'uid'>): Promise<void> {
    try {
      await this.storage.delete(this.key(value), { preconditions: { uid: owner.uid } });
    } catch (error) {
      if (isStorageError(error, 'KeyNotFound') || isStorageError(error, 'Conflict')) return;
      throw error;
    }
  }

  /** Every held value with its owner and when it was taken. */
  async list(): Promise<Array<{ value: string; owner: AllocationOwner; createdAt: number }>> {
    const out: Array<{ value: string; owner: AllocationOwner; createdAt: number }> = [];
    let continueKey: string | undefined;
    do {
      const page = await this.storage.list<AllocationRecord>(this.prefix, { limit: 1000, continue: continueKey });
      for (const record of page.items) {
        out.push({ value: record.metadata.name, owner: record.owner, createdAt: Date.parse(record.metadata.creationTimestamp) });
      }
      continueKey = page.continue || undefined;
    } while (continueKey);
    return out;
  }

  private async tryCreate(value: string, owner: AllocationOwner): Promise<boolean> {
    const record: AllocationRecord = {
      apiVersion: 'v1',
      kind: 'Allocation',
      metadata: { name: value, uid: owner.uid, creationTimestamp: new Date().toISOString() },
      owner,
    };
    try {
      await this.storage.create(this.key(value), record);
      return true;
    } catch (error) {
      if (isStorageError(error, 'KeyExists')) return false;
      throw error;
    }
  }

  private async holder(value: string): Promise<AllocationOwner | undefined> {
    try {
      return (await this.storage.get<AllocationRecord>(this.key(value))).owner;
    } catch (error) {
      if (isStorageError(error, 'KeyNotFound')) return undefined;
      throw error;
    }
  }

  private key(value: string): string {
    // IPv6 addresses hold `:`, which a key segment may; they never hold `/`.
    return objectStorageKey({ prefix: this.storePrefix, group: INTERNAL_GROUP, resource: this.resource, name: value });
  }
}
