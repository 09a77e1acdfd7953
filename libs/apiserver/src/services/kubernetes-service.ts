import { networkInterfaces } from 'node:os';
import { ENDPOINT_SLICE_SERVICE_NAME_LABEL, type ApiObject } from '@svc/api';
import { isStatusError, jsonEqual } from '@svc/machinery';
import { objectStorageKey, prefixKey, type Storage } from '@svc/storage';
import { SERVER_FIELD_MANAGER } from '../registry/core/namespace/bootstrap-namespaces';
import type { ResourceRegistry } from '../registry/resource-registry';
import { INTERNAL_GROUP } from './allocation-store';

/** The Service (and Endpoints) through which pods reach the API server. */
export const KUBERNETES_SERVICE_NAME = 'kubernetes';
/** How often the Service and its Endpoints are checked, and an API server's lease renewed (Kubernetes: 10 s). */
export const KUBERNETES_SERVICE_INTERVAL_MS = 10_000;
/** How long an API server's address stays in the Endpoints without a renewal (Kubernetes' lease: 15 s). */
export const MASTER_LEASE_TTL_SECONDS = 15;

export type EndpointReconcilerType = 'lease' | 'master-count' | 'none';

export interface KubernetesServiceOptions {
  services: ResourceRegistry;
  endpoints: ResourceRegistry;
  /** Where the Service's EndpointSlice is kept beside its Endpoints (Kubernetes' EndpointsAdapter); none when absent. */
  endpointSlices?: ResourceRegistry;
  storage: Storage;
  storePrefix: string;
  /** `--master-service-namespace`. */
  namespace: string;
  /** The first address of the primary service range. */
  clusterIP: string;
  /** The API server's address as pods reach it (`--advertise-address`, else bind address, else the host's). */
  advertiseAddress: string;
  /** The secure port. */
  port: number;
  /** `--svc-service-node-port`: when non-zero the Service is a NodePort one on that port. */
  nodePort?: number;
  /** `--endpoint-reconciler-type`. */
  endpointReconcilerType: EndpointReconcilerType;
}

/**
 * An API server's lease on its address, as Kubernetes keeps it under `masterleases/<ip>`: an Endpoints
 * object naming the address, written with a time to live that each renewal starts again.
 */
interface MasterLease {
  apiVersion: 'v1';
  kind: 'Endpoints';
  metadata: { name: string; generation?: number; resourceVersion?: string };
  subsets: Array<{ addresses: Array<{ ip: string }> }>;
}

/**
 * The address an API server advertises: `--advertise-address`, else a specific bind address, else the
 * host's first non-internal IPv4 address (Kubernetes: the default route's interface), else loopback.
 */
export function advertisedAddress(advertise: string | undefined, bindAddress: string): string {
  if (advertise) return advertise;
  if (bindAddress && bindAddress !== '0.0.0.0' && bindAddress !== '::') return bindAddress;
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

/**
 * Kubernetes' bootstrap controller: keeps the `kubernetes` Service in `default` (cluster IP the first
 * of the range, port 443 to the secure port) and, unless the reconciler is `none`, its Endpoints
 * pointing at the API servers. With `lease`, each API server renews a lease of its address in the
 * store, a key with a time to live that the store deletes when its server stops renewing it, and the
 * Endpoints list every address that has one, so that servers sharing a store agree and a dead one
 * drops out within the TTL and an interval; `master-count` lists this server's address alone. On
 * shutdown the server deletes its lease and takes its address out at once.
 */
export class KubernetesService {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: KubernetesServiceOptions) {}

  /** Reconciles once (the post-start hook waits for it), then every interval. */
  async start(): Promise<void> {
    await this.reconcile();
    const tick = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        void this.reconcile()
          .catch(() => undefined)
          .finally(tick);
      }, KUBERNETES_SERVICE_INTERVAL_MS);
      this.timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.options.endpointReconcilerType !== 'lease') return;
    try {
      await this.options.storage.delete(this.leaseKey(this.options.advertiseAddress));
      await this.reconcileEndpoints();
    } catch {
      // The store may be gone already; the lease then expires on its own.
    }
  }

  async reconcile(): Promise<void> {
    await this.reconcileService();
    if (this.options.endpointReconcilerType !== 'none') await this.reconcileEndpoints();
  }

  private desiredServiceSpec(): Record<string, unknown> {
    const { clusterIP, port, nodePort } = this.options;
    const servicePort: Record<string, unknown> = { name: 'https', port: 443, protocol: 'TCP', targetPort: port };
    if (nodePort) servicePort.nodePort = nodePort;
    return { type: nodePort ? 'NodePort' : 'ClusterIP', clusterIP, ports: [servicePort], sessionAffinity: 'None' };
  }

  private async reconcileService(): Promise<void> {
    const { services, namespace } = this.options;
    const desired = this.desiredServiceSpec();
    let current: ApiObject | undefined;
    try {
      current = await services.get(namespace, KUBERNETES_SERVICE_NAME);
    } catch (error) {
      if (!isStatusError(error) || error.code !== 404) throw error;
    }
    const labels = { component: 'apiserver', provider: 'kubernetes' };
    if (current === undefined) {
      try {
        await services.create(
          namespace,
          { value: { apiVersion: 'v1', kind: 'Service', metadata: { name: KUBERNETES_SERVICE_NAME, namespace, labels }, spec: desired } },
          { fieldManager: SERVER_FIELD_MANAGER },
        );
      } catch (error) {
        if (!isStatusError(error) || error.code !== 409) throw error;
      }
      return;
    }
    // Ports and type follow the flags; the cluster IP, once given, stays (Kubernetes does the same).
    const spec = (current.spec ?? {}) as Record<string, unknown>;
    const ports = (spec.ports as Array<Record<string, unknown>> | undefined) ?? [];
    const wantedPort = (desired.ports as Array<Record<string, unknown>>)[0];
    const portOk =
      ports.length === 1 && ['name', 'port', 'protocol', 'targetPort', 'nodePort'].every((k) => wantedPort[k] === undefined || ports[0][k] === wantedPort[k]);
    if (portOk && spec.type === desired.type) return;
    const next = structuredClone(current) as ApiObject & { spec: Record<string, unknown> };
    next.spec.type = desired.type;
    next.spec.ports = [{ ...wantedPort }];
    await services.update(namespace, KUBERNETES_SERVICE_NAME, { value: next }, { fieldManager: SERVER_FIELD_MANAGER });
  }

  private async liveAddresses(): Promise<string[]> {
    const { storage, advertiseAddress, endpointReconcilerType } = this.options;
    if (endpointReconcilerType !== 'lease') return [advertiseAddress];
    // The store writes only what changed, so the generation goes up to renew the time to live (as Kubernetes does).
    await storage.guaranteedUpdate<MasterLease>(
      this.leaseKey(advertiseAddress),
      (current) => ({
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: advertiseAddress, generation: (current?.metadata.generation ?? 0) + 1 },
        subsets: [{ addresses: [{ ip: advertiseAddress }] }],
      }),
      { ignoreNotFound: true, ttlSeconds: MASTER_LEASE_TTL_SECONDS },
    );
    const addresses = (await this.leasedAddresses()).filter((ip) => ip !== advertiseAddress);
    return [...addresses, advertiseAddress].sort();
  }

  /** The addresses of every live lease (the store has deleted the expired ones). */
  private async leasedAddresses(): Promise<string[]> {
    const prefix = prefixKey({ prefix: this.options.storePrefix, group: INTERNAL_GROUP, resource: 'masterleases' });
    const listed = await this.options.storage.list<MasterLease>(prefix);
    return listed.items.map((lease) => lease.subsets?.[0]?.addresses?.[0]?.ip ?? lease.metadata.name);
  }

  private async reconcileEndpoints(): Promise<void> {
    const { endpoints, namespace, port } = this.options;
    const addresses = this.stopped ? await this.addressesWithoutSelf() : await this.liveAddresses();
    const subsets = addresses.length ? [{ addresses: addresses.map((ip) => ({ ip })), ports: [{ name: 'https', port, protocol: 'TCP' }] }] : [];
    const labels = { 'endpointslice.kubernetes.io/skip-mirror': 'true' };
    let current: ApiObject | undefined;
    try {
      current = await endpoints.get(namespace, KUBERNETES_SERVICE_NAME);
    } catch (error) {
      if (!isStatusError(error) || error.code !== 404) throw error;
    }
    const body = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: KUBERNETES_SERVICE_NAME, namespace, labels }, subsets };
    await this.reconcileEndpointSlice(addresses);
    if (current === undefined) {
      try {
        await endpoints.create(namespace, { value: body }, { fieldManager: SERVER_FIELD_MANAGER });
      } catch (error) {
        if (!isStatusError(error) || error.code !== 409) throw error;
      }
      return;
    }
    if (jsonEqual(current.subsets ?? [], subsets) && jsonEqual(current.metadata?.labels ?? {}, labels)) return;
    const next = { ...structuredClone(current), subsets, metadata: { ...structuredClone(current.metadata), labels } };
    await endpoints.update(namespace, KUBERNETES_SERVICE_NAME, { value: next }, { fieldManager: SERVER_FIELD_MANAGER });
  }

  /**
   * The Service's EndpointSlice, written with its Endpoints as Kubernetes' EndpointsAdapter does (the
   * Endpoints carry skip-mirror, so no controller derives a second one): kubectl describe reads it.
   */
  private async reconcileEndpointSlice(addresses: readonly string[]): Promise<void> {
    const { endpointSlices, namespace, port } = this.options;
    if (endpointSlices === undefined) return;
    const desired = {
      addressType: addresses.some((a) => a.includes(':')) ? 'IPv6' : 'IPv4',
      endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    };
    const labels = { [ENDPOINT_SLICE_SERVICE_NAME_LABEL]: KUBERNETES_SERVICE_NAME };
    let current: ApiObject | undefined;
    try {
      current = await endpointSlices.get(namespace, KUBERNETES_SERVICE_NAME);
    } catch (error) {
      if (!isStatusError(error) || error.code !== 404) throw error;
    }
    if (current !== undefined && current.addressType !== desired.addressType) {
      // The address type is immutable: a changed family means a new slice.
      await endpointSlices.delete(namespace, KUBERNETES_SERVICE_NAME, {}).catch(() => undefined);
      current = undefined;
    }
    if (current === undefined) {
      const body = { apiVersion: 'discovery.svc.io/v1', kind: 'EndpointSlice', metadata: { name: KUBERNETES_SERVICE_NAME, namespace, labels }, ...desired };
      try {
        await endpointSlices.create(namespace, { value: body }, { fieldManager: SERVER_FIELD_MANAGER });
      } catch (error) {
        if (!isStatusError(error) || error.code !== 409) throw error;
      }
      return;
    }
    if (
      jsonEqual(current.endpoints ?? [], desired.endpoints) &&
      jsonEqual(current.ports ?? [], desired.ports) &&
      jsonEqual(current.metadata?.labels ?? {}, labels)
    )
      return;
    const next = { ...structuredClone(current), ...desired, metadata: { ...structuredClone(current.metadata), labels } };
    await endpointSlices.update(namespace, KUBERNETES_SERVICE_NAME, { value: next }, { fieldManager: SERVER_FIELD_MANAGER });
  }

  private async addressesWithoutSelf(): Promise<string[]> {
    return (await this.leasedAddresses()).filter((ip) => ip !== this.options.advertiseAddress).sort();
  }

  private leaseKey(address: string): string {
    return objectStorageKey({ prefix: this.options.storePrefix, group: INTERNAL_GROUP, resource: 'masterleases', name: address });
  }
}
