export { describeStorageContract, configMap, describeEvent, expectCode, key, prefix, take, withTimeout, NAMESPACE } from './contract-suite';
export type { ContractStoreOptions, ContractTestObject, StorageContractHarness } from './contract-suite';
export { ETCD_BINARY, ETCD_INSTALL_COMMAND, etcdUnavailable, freePort, startEtcdCluster } from './etcd-cluster';
export type { EtcdCluster, EtcdMember, EtcdTlsAssets, StartEtcdClusterOptions } from './etcd-cluster';
// etcd's own protocol, for tests that talk to one member directly (a partition's refusals, a member's revision).
export { EtcdClient } from '../store3/etcd-client';
export { ETCD } from '../store3/etcd-protocol';
