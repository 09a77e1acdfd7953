import type { ApiObject, Service, ServicePort } from '@svc/api';
import { fieldInvalid, fieldRequired, newInvalid, type FieldError } from '@svc/machinery';
import type { IpFamily } from '@svc/options';
import type { WriteFinish, WriteHooks } from '../registry/generic/write-hooks';
import { AllocationError, type AllocationOwner, type AllocationStore } from './allocation-store';
import { ipFamilyOf } from './ip-range';

/** The allocators a Service draws from: one per configured IP family (primary first), one for node ports. */
export interface ServiceAllocators {
  /** The cluster IP ranges, the primary family first; two for a dual-stack cluster. */
  ips: readonly AllocationStore[];
  /** Families of `ips`, in the same order. */
  families: readonly IpFamily[];
  nodePorts: AllocationStore;
}

type ServiceSpec = NonNullable<Service['spec']> & Record<string, unknown>;

const SERVICE_KIND = { group: '', kind: 'Service' };

function specOf(object: ApiObject): ServiceSpec {
  const spec = (object.spec ??= {}) as ServiceSpec;
  return spec;
}

function typeOf(spec: ServiceSpec): string {
  return typeof spec.type === 'string' ? spec.type : 'ClusterIP';
}

function needsClusterIP(spec: ServiceSpec): boolean {
  return typeOf(spec) !== 'ExternalName';
}

function isHeadless(spec: ServiceSpec): boolean {
  return spec.clusterIP === 'None' || spec.clusterIPs?.[0] === 'None';
}

function needsNodePorts(spec: ServiceSpec): boolean {
  const type = typeOf(spec);
  return type === 'NodePort' || (type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
}

function needsHealthCheckNodePort(spec: ServiceSpec): boolean {
  return typeOf(spec) === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

function ownerOf(object: ApiObject): AllocationOwner {
  const meta = object.metadata ?? {};
  return { namespace: meta.namespace ?? '', name: meta.name ?? '', uid: meta.uid ?? '' };
}

function portKey(port: Pick<ServicePort, 'port' | 'protocol'>): string {
  return `${port.port}/${port.protocol ?? 'TCP'}`;
}

/** Kubernetes' patchAllocatedValues: an update that leaves out what was allocated keeps it. */
function keepAllocatedValues(spec: ServiceSpec, old: ServiceSpec): void {
  if (needsClusterIP(spec) && needsClusterIP(old)) {
    if (spec.clusterIP === undefined && spec.clusterIPs === undefined && old.clusterIP !== undefined) {
      spec.clusterIP = old.clusterIP;
      if (old.clusterIPs !== undefined) spec.clusterIPs = [...old.clusterIPs];
    }
    spec.ipFamilies ??= old.ipFamilies === undefined ? undefined : [...old.ipFamilies];
    spec.ipFamilyPolicy ??= old.ipFamilyPolicy;
    if (spec.ipFamilies === undefined) delete spec.ipFamilies;
    if (spec.ipFamilyPolicy === undefined) delete spec.ipFamilyPolicy;
  }
  if (needsNodePorts(spec) && needsNodePorts(old)) {
    const oldPorts = new Map((old.ports ?? []).filter((p) => p.nodePort).map((p) => [portKey(p), p.nodePort!]));
    for (const port of spec.ports ?? []) if (port.nodePort === undefined && oldPorts.has(portKey(port))) port.nodePort = oldPorts.get(portKey(port));
  }
  if (needsHealthCheckNodePort(spec) && needsHealthCheckNodePort(old) && spec.healthCheckNodePort === undefined && old.healthCheckNodePort) {
    spec.healthCheckNodePort = old.healthCheckNodePort;
  }
}

/** An allocation that failed for its value (taken, out of range) is the Service's 422; any other failure stays what it is. */
function allocationFailure(fail: (message: string) => never, prefix: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof AllocationError) fail(`${prefix}${error.message}`);
    throw error;
  };
}

/** What one write took, to give back if the write is not stored, and what it let go, to free once it is. */
class Ledger {
  readonly taken: Array<{ store: AllocationStore; value: string }> = [];
  readonly dropped: Array<{ store: AllocationStore; value: string }> = [];

  finish(owner: AllocationOwner, dryRun: boolean): WriteFinish | undefined {
    if (dryRun || (this.taken.length === 0 && this.dropped.length === 0)) return undefined;
    return async (stored) => {
      const freed = stored ? this.dropped : this.taken;
      for (const { store, value } of freed) await store.release(value, owner);
    };
  }

  async rollback(owner: AllocationOwner, dryRun: boolean): Promise<void> {
    if (dryRun) return;
    for (const { store, value } of this.taken) await store.release(value, owner);
  }
}

/**
 * The Service storage's allocation, as Kubernetes' Service REST does it around the generic store:
 * the IP family fields from the cluster's ranges, cluster IPs from `--service-cluster-ip-range`
 * (requested ones honoured or refused), node ports from `--service-node-port-range`, and on update
 * the carry-over of what was allocated, with values freed once the write that dropped them is stored.
 */
export class ServiceAllocation implements WriteHooks {
  constructor(private readonly allocators: ServiceAllocators) {}

  async beginCreate(object: ApiObject, options: { dryRun: boolean }): Promise<WriteFinish | undefined> {
    const spec = specOf(object);
    const owner = ownerOf(object);
    const ledger = new Ledger();
    try {
      if (needsClusterIP(spec)) {
        this.defaultFamilies(object, spec);
        await this.allocateClusterIPs(object, spec, [], owner, ledger, options.dryRun);
      }
      if (needsNodePorts(spec)) await this.allocateNodePorts(object, spec, [], owner, ledger, options.dryRun);
      if (needsHealthCheckNodePort(spec)) await this.allocateHealthCheckNodePort(object, spec, undefined, owner, ledger, options.dryRun);
    } catch (error) {
      await ledger.rollback(owner, options.dryRun);
      throw error;
    }
    return ledger.finish(owner, options.dryRun);
  }

  async beginUpdate(object: ApiObject, current: ApiObject, options: { dryRun: boolean }): Promise<WriteFinish | undefined> {
    const spec = specOf(object);
    const old = specOf({ spec: structuredClone(current.spec ?? {}) });
    const owner = ownerOf(current);
    const ledger = new Ledger();
    try {
      keepAllocatedValues(spec, old);
      await this.updateClusterIPs(object, spec, old, owner, ledger, options.dryRun);
      await this.updateNodePorts(object, spec, old, owner, ledger, options.dryRun);
      const oldHealth = needsHealthCheckNodePort(old) ? old.healthCheckNodePort : undefined;
      if (needsHealthCheckNodePort(spec)) await this.allocateHealthCheckNodePort(object, spec, oldHealth, owner, ledger, options.dryRun);
      else if (spec.healthCheckNodePort !== undefined && spec.healthCheckNodePort === oldHealth) delete spec.healthCheckNodePort;
      if (oldHealth && spec.healthCheckNodePort !== oldHealth) this.drop(String(oldHealth), ledger, this.allocators.nodePorts);
    } catch (error) {
      await ledger.rollback(owner, options.dryRun);
      throw error;
    }
    return ledger.finish(owner, options.dryRun);
  }

  async afterDelete(object: ApiObject): Promise<void> {
    const spec = specOf({ spec: object.spec ?? {} });
    const owner = ownerOf(object);
    for (const ip of spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])) {
      const store = this.ipStoreFor(ip);
      if (store !== undefined) await store.release(ip, owner);
    }
    for (const port of spec.ports ?? []) if (port.nodePort) await this.allocators.nodePorts.release(String(port.nodePort), owner);
    if (spec.healthCheckNodePort) await this.allocators.nodePorts.release(String(spec.healthCheckNodePort), owner);
  }

  /**
   * Kubernetes' initIPFamilyFields: ipFamilyPolicy defaults to SingleStack (RequireDualStack for a
   * headless Service without selector on a dual-stack cluster), ipFamilies follow the requested
   * cluster IPs, else the cluster's primary family, plus the second one for a dual-stack policy.
   */
  private defaultFamilies(object: ApiObject, spec: ServiceSpec): void {
    const errors: FieldError[] = [];
    const configured = this.allocators.families;
    const dualStackCluster = configured.length > 1;
    if (spec.clusterIPs === undefined && spec.clusterIP !== undefined && spec.clusterIP !== '') spec.clusterIPs = [spec.clusterIP];
    if (spec.clusterIP === undefined && spec.clusterIPs !== undefined && spec.clusterIPs.length > 0) spec.clusterIP = spec.clusterIPs[0];
    const headless = isHeadless(spec);
    if (spec.ipFamilyPolicy === undefined) {
      const selectorless = spec.selector === undefined || Object.keys(spec.selector).length === 0;
      spec.ipFamilyPolicy = headless && selectorless && dualStackCluster ? 'RequireDualStack' : 'SingleStack';
    }
    if (spec.ipFamilyPolicy === 'RequireDualStack' && !dualStackCluster) {
      errors.push(fieldInvalid('spec.ipFamilyPolicy', spec.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
    }
    if (spec.ipFamilies === undefined || spec.ipFamilies.length === 0) {
      const fromIPs = (spec.clusterIPs ?? []).filter((ip) => ip !== 'None' && ip !== '').map(ipFamilyOf);
      const families: IpFamily[] = [];
      for (const family of fromIPs) if (family !== undefined && !families.includes(family)) families.push(family);
      if (families.length === 0) families.push(configured[0]);
      if (spec.ipFamilyPolicy !== 'SingleStack' && dualStackCluster && families.length === 1) families.push(configured.find((f) => f !== families[0])!);
      spec.ipFamilies = families;
    } else {
      spec.ipFamilies.forEach((family, i) => {
        if (!configured.includes(family)) errors.push(fieldInvalid(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
      });
      if (spec.ipFamilyPolicy !== 'SingleStack' && dualStackCluster && spec.ipFamilies.length === 1) {
        spec.ipFamilies = [spec.ipFamilies[0], configured.find((f) => f !== spec.ipFamilies![0])!];
      }
    }
    if (spec.ipFamilyPolicy === 'SingleStack' && spec.ipFamilies.length > 1) {
      errors.push(fieldInvalid('spec.ipFamilies', spec.ipFamilies, 'when spec.ipFamilyPolicy is SingleStack, only one ipFamily may be specified'));
    }
    if (errors.length > 0) throw newInvalid(SERVICE_KIND, object.metadata?.name ?? '', errors);
  }

  /** Cluster IPs on update: allocated when the type starts to need them, freed when it stops; never changed. */
  private async updateClusterIPs(
    object: ApiObject,
    spec: ServiceSpec,
    old: ServiceSpec,
    owner: AllocationOwner,
    ledger: Ledger,
    dryRun: boolean,
  ): Promise<void> {
    const oldIPs = needsClusterIP(old) ? (old.clusterIPs ?? (old.clusterIP ? [old.clusterIP] : [])).filter((ip) => ip !== 'None') : [];
    if (needsClusterIP(spec)) {
      if (needsClusterIP(old)) this.checkClusterIPsUnchanged(object, spec, old);
      else this.defaultFamilies(object, spec);
      await this.allocateClusterIPs(object, spec, oldIPs, owner, ledger, dryRun);
      return;
    }
    for (const ip of oldIPs) this.drop(ip, ledger);
    // An ExternalName Service has no cluster IP and no IP families (Kubernetes' dropTypeDependentFields).
    for (const field of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy'] as const) {
      if (field === 'clusterIP' || field === 'clusterIPs' ? JSON.stringify(spec[field]) === JSON.stringify(old[field]) : true) delete spec[field];
    }
  }

  /** Node ports on update: kept where still wanted, allocated where new, freed where gone. */
  private async updateNodePorts(
    object: ApiObject,
    spec: ServiceSpec,
    old: ServiceSpec,
    owner: AllocationOwner,
    ledger: Ledger,
    dryRun: boolean,
  ): Promise<void> {
    const oldNodePorts = needsNodePorts(old) ? (old.ports ?? []).flatMap((p) => (p.nodePort ? [p.nodePort] : [])) : [];
    if (needsNodePorts(spec)) {
      await this.allocateNodePorts(object, spec, oldNodePorts, owner, ledger, dryRun);
    } else if (typeOf(spec) === 'ClusterIP' || typeOf(spec) === 'ExternalName') {
      // Node ports the client left as they were go with the type (dropTypeDependentFields).
      const kept = new Map((old.ports ?? []).map((p) => [portKey(p), p.nodePort]));
      for (const port of spec.ports ?? []) if (port.nodePort !== undefined && kept.get(portKey(port)) === port.nodePort) delete port.nodePort;
    }
    const stillUsed = new Set((needsNodePorts(spec) ? (spec.ports ?? []) : []).flatMap((p) => (p.nodePort ? [p.nodePort] : [])));
    for (const port of oldNodePorts) if (!stillUsed.has(port)) this.drop(String(port), ledger, this.allocators.nodePorts);
  }

  /** One cluster IP per family of `ipFamilies` (none for a headless Service), requested ones taken as given. */
  private async allocateClusterIPs(
    object: ApiObject,
    spec: ServiceSpec,
    held: readonly string[],
    owner: AllocationOwner,
    ledger: Ledger,
    dryRun: boolean,
  ): Promise<void> {
    if (isHeadless(spec)) {
      spec.clusterIP = 'None';
      spec.clusterIPs = ['None'];
      return;
    }
    const families = spec.ipFamilies ?? [this.allocators.families[0]];
    const requested = spec.clusterIPs ?? [];
    const result: string[] = [];
    for (let i = 0; i < families.length; i++) {
      const family = families[i];
      const store = this.allocators.ips[this.allocators.families.indexOf(family)];
      const fail = (message: string): never => {
        throw newInvalid(SERVICE_KIND, object.metadata?.name ?? '', [fieldInvalid('spec.clusterIPs', requested, message)]);
      };
      if (store === undefined) fail(`failed to allocate IP: ${family} is not configured on this cluster`);
      const wanted = requested[i];
      if (wanted !== undefined && wanted !== '') {
        if (ipFamilyOf(wanted) !== family) {
          throw newInvalid(SERVICE_KIND, object.metadata?.name ?? '', [
            fieldInvalid(`spec.clusterIPs[${i}]`, wanted, `expected an IP of family ${family}, as spec.ipFamilies[${i}] is`),
          ]);
        }
        if (!held.includes(wanted))
          await this.takeRequestedIP(store, wanted, owner, ledger, dryRun).catch(allocationFailure(fail, `failed to allocate IP ${wanted}: `));
        result.push(wanted);
      } else {
        result.push(await this.takeNextIP(store, owner, ledger, dryRun).catch(allocationFailure(fail, 'failed to allocate IP: ')));
      }
    }
    spec.clusterIPs = result;
    spec.clusterIP = result[0];
  }

  /** A cluster IP the client asked for, taken (or, for a dry run, checked to be free). */
  private async takeRequestedIP(store: AllocationStore, wanted: string, owner: AllocationOwner, ledger: Ledger, dryRun: boolean): Promise<void> {
    if (dryRun) {
      if (store.range.offsetOf(wanted) === undefined) throw new AllocationError('NotInRange', store.range.notInRangeMessage(wanted));
      if (await store.isAllocated(wanted)) throw new AllocationError('Allocated', 'provided IP is already allocated');
      return;
    }
    await store.allocate(wanted, owner);
    ledger.taken.push({ store, value: wanted });
  }

  /** The next free cluster IP of the range, taken (or, for a dry run, only picked). */
  private async takeNextIP(store: AllocationStore, owner: AllocationOwner, ledger: Ledger, dryRun: boolean): Promise<string> {
    const ip = dryRun ? await this.dryRunPick(store) : await store.allocateNext(owner);
    if (!dryRun) ledger.taken.push({ store, value: ip });
    return ip;
  }

  /** The cluster IPs of an existing Service may not change (Kubernetes' ValidateServiceUpdate). */
  private checkClusterIPsUnchanged(object: ApiObject, spec: ServiceSpec, old: ServiceSpec): void {
    const before = old.clusterIPs ?? (old.clusterIP ? [old.clusterIP] : []);
    const after = spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : []);
    const errors: FieldError[] = [];
    if (spec.clusterIP !== undefined && spec.clusterIPs !== undefined && spec.clusterIPs.length > 0 && spec.clusterIP !== spec.clusterIPs[0]) {
      errors.push(fieldInvalid('spec.clusterIPs', spec.clusterIPs, 'first value must match `clusterIP`'));
    }
    before.forEach((ip, i) => {
      if (after[i] !== undefined && after[i] !== ip) errors.push(fieldInvalid(`spec.clusterIPs[${i}]`, after[i], 'may not change once set'));
    });
    if (before.length > 0 && after.length === 0) errors.push(fieldRequired('spec.clusterIP'));
    if (errors.length > 0) throw newInvalid(SERVICE_KIND, object.metadata?.name ?? '', errors);
    if (after.length < before.length) spec.clusterIPs = [...after, ...before.slice(after.length)];
  }

  private async allocateNodePorts(
    object: ApiObject,
    spec: ServiceSpec,
    held: readonly number[],
    owner: AllocationOwner,
    ledger: Ledger,
    dryRun: boolean,
  ): Promise<void> {
    const store = this.allocators.nodePorts;
    // One node port may serve two ports of one Service that differ in protocol only (TCP and UDP on 53).
    const mine = new Set<number>(held);
    const ports = spec.ports ?? [];
    for (let i = 0; i < ports.length; i++) {
      const port = ports[i];
      const fail = (value: number, message: string): never => {
        throw newInvalid(SERVICE_KIND, object.metadata?.name ?? '', [fieldInvalid(`spec.ports[${i}].nodePort`, value, message)]);
      };
      if (port.nodePort !== undefined) {
        if (mine.has(port.nodePort)) continue;
        try {
          if (dryRun) {
            if (store.range.offsetOf(String(port.nodePort)) === undefined)
              throw new AllocationError('NotInRange', store.range.notInRangeMessage(String(port.nodePort)));
            if (await store.isAllocated(String(port.nodePort))) throw new AllocationError('Allocated', 'provided port is already allocated');
          } else {
            await store.allocate(String(port.nodePort), owner);
            ledger.taken.push({ store, value: String(port.nodePort) });
          }
        } catch (error) {
          if (error instanceof AllocationError) fail(port.nodePort, error.message);
          throw error;
        }
        mine.add(port.nodePort);
      } else {
        try {
          const value = dryRun ? await this.dryRunPick(store) : await store.allocateNext(owner);
          if (!dryRun) ledger.taken.push({ store, value });
          port.nodePort = Number(value);
          mine.add(port.nodePort);
        } catch (error) {
          if (error instanceof AllocationError) fail(0, `failed to allocate a nodePort: ${error.message}`);
          throw error;
        }
      }
    }
  }

  private async allocateHealthCheckNodePort(
    object: ApiObject,
    spec: ServiceSpec,
    held: number | undefined,
    owner: AllocationOwner,
    ledger: Ledger,
    dryRun: boolean,
  ): Promise<void> {
    const store = this.allocators.nodePorts;
    const wanted = spec.healthCheckNodePort;
    if (wanted !== undefined && wanted === held) return;
    try {
      if (wanted !== undefined) {
        if (!dryRun) {
          await store.allocate(String(wanted), owner);
          ledger.taken.push({ store, value: String(wanted) });
        }
      } else {
        const value = dryRun ? await this.dryRunPick(store) : await store.allocateNext(owner);
        if (!dryRun) ledger.taken.push({ store, value });
        spec.healthCheckNodePort = Number(value);
      }
    } catch (error) {
      if (error instanceof AllocationError) {
        throw newInvalid(SERVICE_KIND, object.metadata?.name ?? '', [fieldInvalid('spec.healthCheckNodePort', wanted ?? 0, error.message)]);
      }
      throw error;
    }
  }

  /** A value a dry run can show: free now, not taken (what a real create gets will differ). */
  private async dryRunPick(store: AllocationStore): Promise<string> {
    for (let offset = store.range.size - 1; offset >= 0; offset--) {
      const value = store.range.at(offset);
      if (!(await store.isAllocated(value))) return value;
    }
    throw new AllocationError('Full', 'range is full');
  }

  private drop(value: string, ledger: Ledger, store: AllocationStore | undefined = this.ipStoreFor(value)): void {
    if (store !== undefined) ledger.dropped.push({ store, value });
  }

  private ipStoreFor(ip: string): AllocationStore | undefined {
    const family = ipFamilyOf(ip);
    const index = family === undefined ? -1 : this.allocators.families.indexOf(family);
    return index < 0 ? undefined : this.allocators.ips[index];
  }
}
