import type { EtcdClient } from './etcd-client';
import { ETCD, uint64Text } from './etcd-protocol';

/** Part of a TTL by which a lease may outlive it so that it can be shared (Kubernetes: 5%). */
const REUSE_PERCENT = 0.05;
/** Keys attached to one lease at most before a new one is granted (Kubernetes: 1000). */
const MAX_OBJECTS_PER_LEASE = 1_000;

export interface LeaseManagerOptions {
  /** `--lease-reuse-duration-seconds`: how long a granted lease is handed to later writes; default 60. */
  reuseDurationSeconds?: number;
  now?: () => number;
}

/**
 * Leases for keys with a time to live, as Kubernetes' etcd3 lease manager hands them out: granting one
 * lease per write would double the writes (a lease grant goes through raft too), so a lease is granted
 * with a little extra time (5% of the TTL, at most the reuse duration) and handed to every write of
 * the same TTL in that window. A key therefore lives at least its TTL and at most TTL plus the reuse
 * duration after its last write.
 */
export class LeaseManager {
  private readonly reuseDurationSeconds: number;
  private readonly now: () => number;
  private readonly leases = new Map<number, { id: string; expiresAt: number; objects: number }>();
  private readonly granting = new Map<number, Promise<string>>();

  constructor(
    private readonly client: EtcdClient,
    options: LeaseManagerOptions = {},
  ) {
    this.reuseDurationSeconds = options.reuseDurationSeconds ?? 60;
    this.now = options.now ?? Date.now;
  }

  /** A lease id (decimal, all 64 bits) under which a key lives at least `ttlSeconds` from now. */
  async leaseFor(ttlSeconds: number): Promise<string> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    const reuse = Math.min(Math.floor(REUSE_PERCENT * ttl), this.reuseDurationSeconds);
    const now = this.now();
    const previous = this.leases.get(ttl);
    // Valid: it outlives the TTL; sufficient: it does not outlive it by more than the reuse window.
    if (
      previous !== undefined &&
      previous.objects < MAX_OBJECTS_PER_LEASE &&
      now + ttl * 1000 < previous.expiresAt &&
      now + (ttl + reuse) * 1000 >= previous.expiresAt
    ) {
      previous.objects++;
      return previous.id;
    }
    const inFlight = this.granting.get(ttl);
    if (inFlight !== undefined) return inFlight;
    const grant = (async () => {
      const response = await this.client.call(ETCD.leaseGrant, { TTL: ttl + reuse }, { write: true });
      if (response.error) throw new Error(`etcd refused a lease: ${response.error}`);
      const id = uint64Text(response.ID);
      this.leases.set(ttl, { id, expiresAt: now + (ttl + reuse) * 1000, objects: 1 });
      return id;
    })().finally(() => this.granting.delete(ttl));
    this.granting.set(ttl, grant);
    return grant;
  }
}
