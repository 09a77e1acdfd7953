import { storedDefinition, type KindDefinition } from '@svc/api';
import type { PortRange } from '@svc/options';
import type { Storage } from '@svc/storage';
import type { WriteHooks } from '../registry/generic/write-hooks';
import type { EndpointReconcilerType } from './kubernetes-service';
import { ServiceAllocation, type ServiceAllocators } from './service-allocation';
import { DEFAULT_SERVICE_NODE_PORT_RANGE, serviceAllocators, serviceIpRanges } from './service-ranges';

/** The API server options about Services (names as the flags). */
export interface ServicesOptions {
  /** `--service-cluster-ip-range`; Kubernetes' 10.0.0.0/24 when empty. */
  serviceClusterIpRange?: string;
  /** `--service-node-port-range`. */
  serviceNodePortRange?: PortRange;
  /** `--svc-service-node-port`. */
  kubernetesServiceNodePort?: number;
  /** `--endpoint-reconciler-type`. */
  endpointReconcilerType?: EndpointReconcilerType;
  /** `--master-service-namespace`. */
  masterServiceNamespace?: string;
}

/** What the server needs of Services before it starts: their allocators, and the write hooks of the Service storage. */
export function serviceWriteHooks(
  storage: Storage,
  storePrefix: string,
  options: ServicesOptions,
): { allocators: ServiceAllocators; kubernetesClusterIP: string; writeHooks: (definition: KindDefinition) => WriteHooks | undefined } {
  const ranges = serviceIpRanges(options.serviceClusterIpRange);
  const allocators = serviceAllocators(storage, storePrefix, ranges, options.serviceNodePortRange ?? DEFAULT_SERVICE_NODE_PORT_RANGE);
  const allocation = new ServiceAllocation(allocators);
  // The Service storage is the core group's `services`, as Kubernetes' own Service REST wraps it.
  const writeHooks = (definition: KindDefinition) => {
    const def = storedDefinition(definition);
    return def.group === '' && def.resource === 'services' ? allocation : undefined;
  };
  return { allocators, kubernetesClusterIP: ranges[0].at(0), writeHooks };
}
