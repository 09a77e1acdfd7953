export { AllocationError, AllocationStore, INTERNAL_GROUP, type AllocationOwner, type AllocationRange } from './allocation-store';
export { bigIntToIp, ipFamilyOf, ipToBigInt, IpRange } from './ip-range';
export { advertisedAddress, KUBERNETES_SERVICE_NAME, KubernetesService, type EndpointReconcilerType } from './kubernetes-service';
export { ServiceAllocation, type ServiceAllocators } from './service-allocation';
export { DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE, serviceAllocators, serviceIpRanges } from './service-ranges';
export { LEAK_GRACE_MS, repairServiceAllocations, type RepairOutcome } from './service-repair';
export { SERVICE_POST_START_HOOKS, services, type ServicesPartOptions } from './services-part';
export { serviceWriteHooks, type ServicesOptions } from './service-storage';
