// Value types of the flags.
export type { FlagType, ValueOf } from './flags/flag-type';
export { bool, parseGoBool } from './flags/bool';
export { duration, formatDuration, formatGoDurationNanos, parseDuration, parseGoDurationNanos, type Millis } from './flags/duration';
export { float } from './flags/float';
export { int, int32, parseGoInt } from './flags/int';
export { oneOf, string } from './flags/string';
export { strings, stringsOf } from './flags/strings';
export { stringToString } from './flags/string-to-string';
export { keyValuePairs, mapStringBool } from './flags/key-value-pairs';
export { formatPortRange, parsePortRange, portRange, portRangeContains, type PortRange } from './flags/port-range';
export { parseCidr, parseDualStackCidrs, type Cidr, type IpFamily } from './flags/cidr';
export { cidrs } from './flags/cidrs';
export { moduleSpec, type ModuleVerbosity } from './flags/module-spec';
export { namedCertKey, type NamedCertKey } from './flags/named-cert-key';
export { readCsvRecord } from './flags/csv-record';

// Declaring and parsing a process's flag set.
export { camelCase, flag, type CamelCase, type CheckResult, type FlagAction, type FlagDef } from './flag-set/flag';
export { refusedFlagProblem, type RefusedFlag } from './flag-set/refused-flags';
export { UNSUPPORTED_SHARED_FLAGS } from './flag-set/unsupported-shared-flags';
export {
  defineFlagSet,
  flagTable,
  helpFlag,
  versionFlag,
  type FlagGroup,
  type FlagSet,
  type FlagTable,
  type GivenFlags,
  type OptionsOf,
  type Problem,
  type Rule,
} from './flag-set/flag-set';
export { FlagError } from './flag-set/flag-error';
export { parseFlagSet, type ParseOutcome } from './flag-set/parse-flag-set';
export { parseOrExit, type ProcessIo } from './flag-set/parse-or-exit';
export { renderHelp } from './flag-set/help';
export { productVersion, versionText } from './flag-set/product-version';

// The processes' option sets.
export {
  ADMISSION_PLUGIN_ORDER,
  DEFAULT_ADMISSION_PLUGINS,
  OPTIONAL_ADMISSION_PLUGINS,
  enabledAdmissionPlugins,
  type AdmissionPluginName,
} from './sets/admission-plugins';
export { DISABLED_BY_DEFAULT_CONTROLLERS, KNOWN_CONTROLLERS, enabledControllers, type ControllerName } from './sets/controllers';
export { TLS_CIPHER_SUITES, TLS_VERSIONS, type TlsVersionName } from './sets/tls-cipher-suites';
export { tlsServerOptions, type TlsServerOptions } from './sets/tls-server-options';
export {
  API_SERVER_FLAGS,
  AUTHORIZATION_MODES,
  NODE_ADDRESS_TYPES,
  OIDC_SIGNING_ALGORITHMS,
  STORAGE_BACKENDS,
  type ApiServerFlags,
} from './sets/apiserver-flags';
export { apiServerFlagSet, parseApiServerOptions, serviceClusterIpRanges, storeServersOverrides, watchCacheSizes } from './sets/apiserver-options';
export type { StoreServersOverride } from './sets/apiserver-options';
export { CLUSTER_SIGNERS, CONTROLLER_MANAGER_FLAGS, type ControllerManagerOptions } from './sets/controller-manager-flags';
export { controllerManagerFlagSet, parseControllerManagerOptions } from './sets/controller-manager-options';
export { SCHEDULER_FLAGS, type SchedulerOptions } from './sets/scheduler-flags';
export { parseSchedulerOptions, schedulerFlagSet } from './sets/scheduler-options';
export { NODE_SIMULATOR_FLAGS, nodeSimulatorFlagSet, parseNodeSimulatorOptions, parseTaint, type NodeSimulatorOptions } from './sets/node-simulator-flags';

// Building blocks for further processes' tables.
export {
  clientFlags,
  CLIENT_CA_FLAG,
  CLOUD_FLAGS,
  APISERVER_FEATURE_GATES,
  CONTROLLER_MANAGER_FEATURE_GATES,
  featureEnabled,
  featureGatesFlag,
  type FeatureGate,
  leaderElectionFlags,
  LOG_FLAGS,
  METRICS_FLAGS,
  PROFILING_FLAGS,
  SHARED_SERVING_FLAGS,
} from './sets/common-flags';
export { atLeast, between, durationAbove, durationAtLeast, eachEntry, greaterThan, ipAddress, ipAddressOrBlank, nonEmpty, urlProblem } from './sets/checks';
export { givenTogether, leaderElectionDurations, type LeaderElectionDurations } from './sets/shared-rules';
export { NODE_AGENT_FLAGS, nodeAgentFlagSet, parseNodeAgentFlags, type NodeAgentFlags } from './sets/node-agent-flags';
export { API_SERVER_REFUSED_FLAGS } from './sets/apiserver-refused-flags';
export { CONTROLLER_MANAGER_REFUSED_FLAGS } from './sets/controller-manager-refused-flags';
export { SCHEDULER_REFUSED_FLAGS } from './sets/scheduler-refused-flags';
export {
  DETECT_LOCAL_MODES,
  PROXY_FLAGS,
  PROXY_MODES,
  PROXY_REFUSED_FLAGS,
  parseHostPort,
  parseProxyOptions,
  proxyFlagSet,
  type ProxyOptions,
} from './sets/proxy-flags';
export { DNS_FLAGS, dnsFlagSet, parseDnsOptions, type DnsOptions } from './sets/dns-flags';
export {
  METRICS_SERVER_ADDRESS_TYPES,
  METRICS_SERVER_FLAGS,
  metricsServerFlagSet,
  parseMetricsServerOptions,
  type MetricsServerOptions,
} from './sets/metrics-server-flags';
export { INGRESS_FLAGS, ingressFlagSet, parseIngressOptions, type IngressOptions } from './sets/ingress-flags';
