export { describeStorageContract, configMap, describeEvent, expectCode, key, prefix, take, withTimeout, NAMESPACE } from './contract-suite';
export type { ContractStoreOptions, ContractTestObject, StorageContractHarness } from './contract-suite';
export { ETCD_BINARY, ETCD_INSTALL_COMMAND, etcdUnavailable, freePort, startEtcdCluster } from './etcd-cluster';
export type { EtcdCluster, EtcdMember, EtcdTlsAssets, StartEtcdClusterOptions } from './etcd-cluster';
