import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Lease } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import { SERVER_FIELD_MANAGER } from '../registry/core/namespace/bootstrap-namespaces';
import type { ResourceRegistry } from '../registry/resource-registry';

/** The label of every API server identity Lease, and its value for this kind of server (Kubernetes' names). */
export const IDENTITY_LEASE_LABEL = 'apiserver.kubernetes.io/identity';
export const IDENTITY_LEASE_COMPONENT = 'kube-apiserver';
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
/** How often expired identity Leases are looked for (Kubernetes: an hour). */
export const IDENTITY_LEASE_GC_PERIOD_MS = 3_600_000;
/** The post-start hooks, by Kubernetes' names. */
export const IDENTITY_POST_START_HOOKS = {
  lease: 'start-kube-apiserver-identity-lease-controller',
  gc: 'start-kube-apiserver-identity-lease-garbage-collector',
} as const;

/**
 * An API server's identity, as Kubernetes derives it: `apiserver-` and the base32 (lower case, no
 * padding) of the first 16 bytes of SHA-256 over the host name and the component name, each prefixed
 * with its length as two bytes. Stable across restarts of the same host, distinct between hosts.
 */
export function apiServerIdentity(host = hostname(), component = IDENTITY_LEASE_COMPONENT): string {
  const field = (text: string): Buffer => {
    const bytes = Buffer.from(text, 'utf8');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const digest = createHash('sha256')
    .update(Buffer.concat([field(host), field(component)]))
    .digest()
    .subarray(0, 16);
  return `apiserver-${base32(digest).toLowerCase()}`;
}

function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** A time as Kubernetes' MicroTime writes it: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export interface IdentityLeaseOptions {
  leases: ResourceRegistry<Lease>;
  /** Where the Leases live: the system namespace (`kube-system`, stored as `svc-system`). */
  namespace: string;
  /** `--identity-lease-duration-seconds` (3600). */
  durationSeconds: number;
  /** `--identity-lease-renew-interval-seconds` (10). */
  renewIntervalSeconds: number;
  host?: string;
  now?: () => number;
  log?: (message: string) => void;
}

/**
 * Kubernetes' API server identity: each server holds a Lease named by its identity in the system
 * namespace (labels `apiserver.kubernetes.io/identity: kube-apiserver` and `kubernetes.io/hostname`),
 * renewed every interval with its holder `<identity>_<uuid of this run>`; a garbage collector deletes
 * identity Leases not renewed for their duration, so the Leases list the servers alive within it.
 * A server that stops gracefully deletes its own Lease.
 */
export class ApiServerIdentityLease {
  readonly name: string;
  readonly holderIdentity: string;
  private readonly host: string;
  private readonly now: () => number;
  private renewTimer: NodeJS.Timeout | undefined;
  private gcTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: IdentityLeaseOptions) {
    this.host = options.host ?? hostname();
    this.name = apiServerIdentity(this.host);
    this.holderIdentity = `${this.name}_${randomUUID()}`;
    this.now = options.now ?? Date.now;
  }

  /** Writes the Lease once (the post-start hook waits for that), then renews it every interval. */
  async start(): Promise<void> {
    await this.renew();
    const tick = (): void => {
      if (this.stopped) return;
      this.renewTimer = setTimeout(() => {
        this.renew()
          .catch((error: unknown) => this.options.log?.(`identity lease ${this.name}: ${String(error)}`))
          .finally(tick);
      }, this.options.renewIntervalSeconds * 1000);
      this.renewTimer.unref();
    };
    tick();
  }

  /** Deletes expired identity Leases now and then every GC period. */
  startGarbageCollector(periodMs = IDENTITY_LEASE_GC_PERIOD_MS): void {
    const collect = (): void => void this.collectGarbage().catch((error: unknown) => this.options.log?.(`identity lease garbage collection: ${String(error)}`));
    this.gcTimer = setInterval(collect, periodMs);
    this.gcTimer.unref();
    collect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.renewTimer !== undefined) clearTimeout(this.renewTimer);
    if (this.gcTimer !== undefined) clearInterval(this.gcTimer);
    try {
      const current = await this.options.leases.get(this.options.namespace, this.name);
      if (current.spec?.holderIdentity === this.holderIdentity) {
        await this.options.leases.delete(this.options.namespace, this.name, { preconditions: { uid: current.metadata?.uid } });
      }
    } catch {
      // Gone already, or the store is: the collector removes it once it expires.
    }
  }

  /** Creates or renews this server's Lease. */
  async renew(): Promise<void> {
    const { leases, namespace, durationSeconds } = this.options;
    const now = microTime(this.now());
    const labels = { [IDENTITY_LEASE_LABEL]: IDENTITY_LEASE_COMPONENT, [HOSTNAME_LABEL]: this.host };
    let current: Lease | undefined;
    try {
      current = await leases.get(namespace, this.name);
    } catch (error) {
      if (!isStatusError(error) || error.code !== 404) throw error;
    }
    if (current === undefined) {
      const lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.name, namespace, labels },
        spec: { holderIdentity: this.holderIdentity, leaseDurationSeconds: durationSeconds, acquireTime: now, renewTime: now },
      };
      await leases.create(namespace, { value: lease }, { fieldManager: SERVER_FIELD_MANAGER });
      return;
    }
    const spec = { ...current.spec, holderIdentity: this.holderIdentity, leaseDurationSeconds: durationSeconds, renewTime: now };
    const next = { ...current, metadata: { ...current.metadata, labels: { ...current.metadata?.labels, ...labels } }, spec };
    await leases.update(namespace, this.name, { value: next }, { fieldManager: SERVER_FIELD_MANAGER });
  }

  /** Deletes identity Leases in the namespace whose renew time plus duration has passed. */
  async collectGarbage(): Promise<number> {
    const { leases, namespace } = this.options;
    const listed = await leases.list(namespace, { labelSelector: `${IDENTITY_LEASE_LABEL}=${IDENTITY_LEASE_COMPONENT}` });
    let deleted = 0;
    for (const lease of listed.items) {
      const spec = lease.spec ?? {};
      const renewed = spec.renewTime === undefined ? Number.NaN : Date.parse(spec.renewTime);
      const duration = (spec.leaseDurationSeconds ?? 0) * 1000;
      if (Number.isNaN(renewed) || renewed + duration >= this.now()) continue;
      try {
        // At the version judged expired: a renewal meanwhile keeps it.
        await leases.delete(namespace, lease.metadata?.name ?? '', { preconditions: { resourceVersion: lease.metadata?.resourceVersion } });
        deleted++;
      } catch {
        // renewed or deleted meanwhile
      }
    }
    return deleted;
  }
}
