import { Type, type Static } from '@sinclair/typebox';
import { compileKind, defineKind, fieldErrors, ListAtomic, Quantity, StringMap, TaintSchema, type ApiObject, type FieldError } from '@svc/api';
import { CLIENT_CONTENT_TYPES } from '@svc/client';
import { parseDuration, TLS_CIPHER_SUITES, TLS_VERSIONS } from '@svc/options';
import { Bool, Duration, Enum, I32, I64, Str, typeMeta } from './config-schema';

export const CONFIG_GROUP = 'nodeagent.config.svc.io';
export const CONFIG_VERSION = 'v1beta1';
export const CONFIG_API_VERSION = `${CONFIG_GROUP}/${CONFIG_VERSION}`;

const Port = (def: number) => I32(def, { minimum: 1, maximum: 65535 });
/** 0 disables; otherwise a port. */
const OptionalPort = (def: number) => I32(def, { minimum: 0, maximum: 65535 });
const NonNegative32 = (def?: number) => I32(def, { minimum: 0 });
const Strings = () => Type.Array(Type.String());
const StringStrings = () => StringMap(Type.String());

const AuthenticationSchema = Type.Object(
  {
    x509: Type.Optional(Type.Object({ clientCAFile: Type.Optional(Str('')) }, { default: {} })),
    webhook: Type.Optional(Type.Object({ enabled: Type.Optional(Bool(true)), cacheTTL: Type.Optional(Duration('2m')) }, { default: {} })),
    anonymous: Type.Optional(Type.Object({ enabled: Type.Optional(Bool(false)) }, { default: {} })),
  },
  { default: {} },
);

const AuthorizationSchema = Type.Object(
  {
    mode: Type.Optional(Enum(['AlwaysAllow', 'Webhook'] as const, 'Webhook')),
    webhook: Type.Optional(
      Type.Object({ cacheAuthorizedTTL: Type.Optional(Duration('5m')), cacheUnauthorizedTTL: Type.Optional(Duration('30s')) }, { default: {} }),
    ),
  },
  { default: {} },
);

const LoggingSchema = Type.Object(
  {
    format: Type.Optional(Str('text')),
    /** Nanoseconds, or a duration string as Kubernetes also reads it. */
    flushFrequency: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Duration()], { default: 5_000_000_000 })),
    verbosity: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    vmodule: Type.Optional(Type.Array(Type.Object({ filePattern: Type.String(), verbosity: Type.Integer({ minimum: 0 }) }))),
    options: Type.Optional(
      Type.Object(
        {
          json: Type.Optional(Type.Object({ splitStream: Type.Optional(Type.Boolean()), infoBufferSize: Type.Optional(Quantity()) })),
        },
        {},
      ),
    ),
  },
  { default: {} },
);

/**
 * `NodeAgentConfiguration` (spec 3): every field with its type and default. A field marked
 * "required" in the spec is one that is always written out; omitted, it takes its default, as
 * Kubernetes' kubelet reads its file. Validation beyond types is in {@link nodeAgentConfigurationRules}.
 */
export const NodeAgentConfigurationSchema = Type.Object({
  ...typeMeta(CONFIG_API_VERSION, 'NodeAgentConfiguration'),
  enableServer: Type.Optional(Bool(true)),
  staticPodPath: Type.Optional(Str('')),
  syncFrequency: Type.Optional(Duration('1m')),
  fileCheckFrequency: Type.Optional(Duration('20s')),
  httpCheckFrequency: Type.Optional(Duration('20s')),
  staticPodURL: Type.Optional(Str('')),
  staticPodURLHeader: Type.Optional(StringMap(Strings())),
  address: Type.Optional(Str('0.0.0.0')),
  port: Type.Optional(Port(10250)),
  readOnlyPort: Type.Optional(OptionalPort(0)),
  tlsCertFile: Type.Optional(Str('')),
  tlsPrivateKeyFile: Type.Optional(Str('')),
  tlsCipherSuites: Type.Optional(Strings()),
  tlsMinVersion: Type.Optional(Str('')),
  rotateCertificates: Type.Optional(Bool(false)),
  serverTLSBootstrap: Type.Optional(Bool(false)),
  authentication: Type.Optional(AuthenticationSchema),
  authorization: Type.Optional(AuthorizationSchema),
  registryPullQPS: Type.Optional(NonNegative32(5)),
  registryBurst: Type.Optional(NonNegative32(10)),
  eventRecordQPS: Type.Optional(NonNegative32(5)),
  eventBurst: Type.Optional(NonNegative32(10)),
  enableDebuggingHandlers: Type.Optional(Bool(true)),
  enableContentionProfiling: Type.Optional(Bool(false)),
  healthzPort: Type.Optional(OptionalPort(10248)),
  healthzBindAddress: Type.Optional(Str('127.0.0.1')),
  oomScoreAdj: Type.Optional(I32(-999, { minimum: -1000, maximum: 1000 })),
  clusterDomain: Type.Optional(Str('')),
  clusterDNS: Type.Optional(Strings()),
  streamingConnectionIdleTimeout: Type.Optional(Duration('4h')),
  nodeStatusUpdateFrequency: Type.Optional(Duration('10s')),
  nodeStatusReportFrequency: Type.Optional(Duration('5m')),
  nodeLeaseDurationSeconds: Type.Optional(I32(40, { minimum: 1 })),
  imageMinimumGCAge: Type.Optional(Duration('2m')),
  imageGCHighThresholdPercent: Type.Optional(I32(85, { minimum: 0, maximum: 100 })),
  imageGCLowThresholdPercent: Type.Optional(I32(80, { minimum: 0, maximum: 100 })),
  volumeStatsAggPeriod: Type.Optional(Duration('1m')),
  nodeAgentCgroups: Type.Optional(Str('')),
  systemCgroups: Type.Optional(Str('')),
  cgroupRoot: Type.Optional(Str()),
  cgroupsPerQOS: Type.Optional(Bool(true)),
  cgroupDriver: Type.Optional(Enum(['cgroupfs', 'systemd'] as const, 'cgroupfs')),
  cpuManagerPolicy: Type.Optional(Str('None')),
  cpuManagerPolicyOptions: Type.Optional(StringStrings()),
  cpuManagerReconcilePeriod: Type.Optional(Duration('10s')),
  memoryManagerPolicy: Type.Optional(Str('none')),
  topologyManagerPolicy: Type.Optional(Str('none')),
  topologyManagerScope: Type.Optional(Enum(['container', 'pod'] as const, 'container')),
  qosReserved: Type.Optional(StringStrings()),
  runtimeRequestTimeout: Type.Optional(Duration('2m')),
  hairpinMode: Type.Optional(Str()),
  maxPods: Type.Optional(NonNegative32(110)),
  podCIDR: Type.Optional(Str('')),
  podPidsLimit: Type.Optional(I64(-1)),
  resolvConf: Type.Optional(Str('/etc/resolv.conf')),
  runOnce: Type.Optional(Bool(false)),
  cpuCFSQuota: Type.Optional(Bool(true)),
  cpuCFSQuotaPeriod: Type.Optional(Duration()),
  nodeStatusMaxImages: Type.Optional(I32(50, { minimum: -1 })),
  maxOpenFiles: Type.Optional(I64(1_000_000, { minimum: 0 })),
  // Spec 3's default: Kubernetes' protobuf, as a kubelet speaks it (docs/kubectl.md, "Content types").
  contentType: Type.Optional(Enum(CLIENT_CONTENT_TYPES, 'application/vnd.svc.protobuf')),
  svcAPIQPS: Type.Optional(I32(5)),
  svcAPIBurst: Type.Optional(NonNegative32(10)),
  serializeImagePulls: Type.Optional(Bool(true)),
  evictionHard: Type.Optional(StringStrings()),
  evictionSoft: Type.Optional(StringStrings()),
  evictionSoftGracePeriod: Type.Optional(StringStrings()),
  evictionPressureTransitionPeriod: Type.Optional(Duration('5m')),
  evictionMaxPodGracePeriod: Type.Optional(I32(0)),
  evictionMinimumReclaim: Type.Optional(StringStrings()),
  podsPerCore: Type.Optional(NonNegative32(0)),
  enableControllerAttachDetach: Type.Optional(Bool(true)),
  protectKernelDefaults: Type.Optional(Bool(false)),
  makeIPTablesUtilChains: Type.Optional(Bool(true)),
  iptablesMasqueradeBit: Type.Optional(I32(14, { minimum: 0, maximum: 31 })),
  iptablesDropBit: Type.Optional(I32(15, { minimum: 0, maximum: 31 })),
  featureGates: Type.Optional(StringMap(Type.Boolean())),
  failSwapOn: Type.Optional(Bool(true)),
  memorySwap: Type.Optional(Type.Object({ swapBehavior: Type.Optional(Enum(['', 'LimitedSwap', 'UnlimitedSwap'] as const)) })),
  containerLogMaxSize: Type.Optional(Type.Unsafe<string>({ ...Quantity(), type: 'string', default: '10Mi' })),
  containerLogMaxFiles: Type.Optional(I32(5, { minimum: 2 })),
  /** The kubelet's fields beside the two of spec 3: how often logs are checked, and how many containers are rotated at once. */
  containerLogMonitorInterval: Type.Optional(Duration('10s')),
  containerLogMaxWorkers: Type.Optional(I32(1, { minimum: 1 })),
  configMapAndSecretChangeDetectionStrategy: Type.Optional(Str('Watch')),
  systemReserved: Type.Optional(StringMap(Quantity())),
  svcReserved: Type.Optional(StringMap(Quantity())),
  reservedSystemCPUs: Type.Optional(Str()),
  showHiddenMetricsForVersion: Type.Optional(Str(undefined, { pattern: '^(\\d+\\.\\d+)?$' })),
  systemReservedCgroup: Type.Optional(Str()),
  svcReservedCgroup: Type.Optional(Str()),
  enforceNodeAllocatable: Type.Optional(Strings()),
  allowedUnsafeSysctls: Type.Optional(Strings()),
  volumePluginDir: Type.Optional(Str('/usr/libexec/svc/nodeagent-plugins/volume/exec/')),
  providerID: Type.Optional(Str('')),
  kernelMemcgNotification: Type.Optional(Bool(false)),
  logging: Type.Optional(LoggingSchema),
  enableSystemLogHandler: Type.Optional(Bool(true)),
  shutdownGracePeriod: Type.Optional(Duration('0s')),
  shutdownGracePeriodCriticalPods: Type.Optional(Duration('0s')),
  shutdownGracePeriodByPodPriority: Type.Optional(Type.Array(Type.Object({ priority: Type.Integer(), shutdownGracePeriodSeconds: Type.Integer() }))),
  reservedMemory: Type.Optional(Type.Array(Type.Object({ numaNode: Type.Integer({ minimum: 0 }), limits: StringMap(Quantity()) }))),
  enableProfilingHandler: Type.Optional(Bool(true)),
  enableDebugFlagsHandler: Type.Optional(Bool(true)),
  seccompDefault: Type.Optional(Type.Boolean()),
  memoryThrottlingFactor: Type.Optional(Type.Number({ default: 0.8, exclusiveMinimum: 0, maximum: 1 })),
  registerWithTaints: Type.Optional(ListAtomic(TaintSchema)),
  registerNode: Type.Optional(Bool(true)),
  tracing: Type.Optional(
    Type.Object({ endpoint: Type.Optional(Type.String()), samplingRatePerMillion: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })) }, {}),
  ),
  localStorageCapacityIsolation: Type.Optional(Bool(true)),
});

/** The configuration after defaulting: every defaulted field present. */
export type NodeAgentConfiguration = Static<typeof NodeAgentConfigurationSchema>;

function ms(value: string | undefined): number {
  return value === undefined ? 0 : parseDuration(value);
}

/** Gates that are on unless turned off, as in Kubernetes 1.32 (RotateKubeletServerCertificate is beta, on). */
const GATES_ON_BY_DEFAULT: ReadonlySet<string> = new Set(['RotateKubeletServerCertificate']);
const gate = (config: NodeAgentConfiguration, name: string): boolean => config.featureGates?.[name] ?? GATES_ON_BY_DEFAULT.has(name);

/** Where a rule files what it finds wrong. */
interface RuleErrors {
  errors: FieldError[];
  invalid: (field: string, value: unknown, detail: string) => void;
}

/** Fields that must agree with one another. */
function relationRules(c: NodeAgentConfiguration, { invalid }: RuleErrors): void {
  if ((c.imageGCHighThresholdPercent ?? 85) <= (c.imageGCLowThresholdPercent ?? 80)) {
    invalid('imageGCLowThresholdPercent', c.imageGCLowThresholdPercent, 'must be less than imageGCHighThresholdPercent');
  }
  if (c.readOnlyPort !== undefined && c.readOnlyPort !== 0 && (c.readOnlyPort < 1 || c.readOnlyPort > 65535)) {
    invalid('readOnlyPort', c.readOnlyPort, 'must be 0 or between 1 and 65535');
  }
  if (c.iptablesMasqueradeBit === c.iptablesDropBit && c.iptablesDropBit !== undefined) {
    invalid('iptablesDropBit', c.iptablesDropBit, 'must be different from iptablesMasqueradeBit');
  }
  if ((c.podsPerCore ?? 0) > (c.maxPods ?? 110)) invalid('podsPerCore', c.podsPerCore, 'must not be more than maxPods');
  if (c.enableContentionProfiling && c.enableDebuggingHandlers === false) {
    invalid('enableContentionProfiling', true, 'needs enableDebuggingHandlers');
  }
  if (c.systemCgroups && c.cgroupRoot === undefined) invalid('systemCgroups', c.systemCgroups, 'needs cgroupRoot');
  if (c.reservedSystemCPUs && (c.systemReservedCgroup || c.svcReservedCgroup)) {
    invalid('reservedSystemCPUs', c.reservedSystemCPUs, 'cannot be set together with systemReservedCgroup or svcReservedCgroup');
  }
  if (c.containerLogMonitorInterval !== undefined && ms(c.containerLogMonitorInterval) < 3_000)
    invalid('containerLogMonitorInterval', c.containerLogMonitorInterval, 'must be a positive time duration greater than or equal to 3s');
  if (c.nodeLeaseDurationSeconds !== undefined && c.nodeLeaseDurationSeconds <= 0)
    invalid('nodeLeaseDurationSeconds', c.nodeLeaseDurationSeconds, 'must be greater than 0');
}

/** Settings that need a feature gate. */
function gateRules(c: NodeAgentConfiguration, { errors, invalid }: RuleErrors): void {
  if (c.serverTLSBootstrap && !gate(c, 'RotateKubeletServerCertificate')) {
    invalid('serverTLSBootstrap', true, 'needs the RotateKubeletServerCertificate feature gate');
  }
  if (c.cpuManagerPolicy !== undefined && c.cpuManagerPolicy !== 'None' && !gate(c, 'CPUManager')) {
    invalid('cpuManagerPolicy', c.cpuManagerPolicy, 'needs the CPUManager feature gate');
  }
  if (c.cpuManagerPolicyOptions && Object.keys(c.cpuManagerPolicyOptions).length > 0 && !(gate(c, 'CPUManager') && gate(c, 'CPUManagerPolicyOptions'))) {
    invalid('cpuManagerPolicyOptions', c.cpuManagerPolicyOptions, 'needs the CPUManager and CPUManagerPolicyOptions feature gates');
  }
  if (c.memoryManagerPolicy !== undefined && c.memoryManagerPolicy !== 'none' && !gate(c, 'MemoryManager')) {
    invalid('memoryManagerPolicy', c.memoryManagerPolicy, 'needs the MemoryManager feature gate');
  }
  if (c.topologyManagerPolicy !== undefined && c.topologyManagerPolicy !== 'none' && !gate(c, 'TopologyManager')) {
    invalid('topologyManagerPolicy', c.topologyManagerPolicy, 'needs the TopologyManager feature gate');
  }
  if (c.topologyManagerScope === 'pod' && !gate(c, 'TopologyManager')) invalid('topologyManagerScope', 'pod', 'needs the TopologyManager feature gate');
  if (c.qosReserved && Object.keys(c.qosReserved).length > 0) {
    if (!gate(c, 'QOSReserved')) invalid('qosReserved', c.qosReserved, 'needs the QOSReserved feature gate');
    for (const [resource, value] of Object.entries(c.qosReserved)) {
      if (resource !== 'memory') errors.push(fieldErrors.notSupported(`qosReserved[${resource}]`, resource, ['memory']));
      else if (!/^(100|[1-9]?[0-9])%$/.test(value)) invalid(`qosReserved[${resource}]`, value, 'must be a percentage between 0% and 100%');
    }
  }
}

function shutdownRules(c: NodeAgentConfiguration, { invalid }: RuleErrors): void {
  const shutdown = ms(c.shutdownGracePeriod);
  const critical = ms(c.shutdownGracePeriodCriticalPods);
  if (shutdown < 0) invalid('shutdownGracePeriod', c.shutdownGracePeriod, 'must not be negative');
  if (critical < 0) invalid('shutdownGracePeriodCriticalPods', c.shutdownGracePeriodCriticalPods, 'must not be negative');
  if (critical > shutdown) invalid('shutdownGracePeriodCriticalPods', c.shutdownGracePeriodCriticalPods, 'must not be more than shutdownGracePeriod');
  if ((c.shutdownGracePeriodByPodPriority ?? []).length > 0) {
    if (!gate(c, 'GracefulNodeShutdown')) invalid('shutdownGracePeriodByPodPriority', '', 'needs the GracefulNodeShutdown feature gate');
    if (shutdown !== 0 || critical !== 0) {
      invalid('shutdownGracePeriodByPodPriority', '', 'must be empty when shutdownGracePeriod or shutdownGracePeriodCriticalPods is set');
    }
  }
}

const RESERVABLE = ['cpu', 'memory', 'ephemeral-storage', 'pid'];

/** Reserved resources, logging and TLS names. */
function vocabularyRules(c: NodeAgentConfiguration, { errors, invalid }: RuleErrors): void {
  for (const field of ['systemReserved', 'svcReserved'] as const) {
    for (const resource of Object.keys(c[field] ?? {})) {
      if (!RESERVABLE.includes(resource)) errors.push(fieldErrors.notSupported(`${field}[${resource}]`, resource, RESERVABLE));
    }
  }
  const logging = c.logging;
  if (logging?.format !== undefined && logging.format !== 'text' && logging.format !== 'json') {
    errors.push(fieldErrors.notSupported('logging.format', logging.format, ['text', 'json']));
  }
  if (logging?.vmodule?.length && logging.format === 'json') invalid('logging.vmodule', '', 'is only supported with the text format');
  if (logging?.options && !gate(c, 'LoggingAlphaOptions')) invalid('logging.options', '', 'needs the LoggingAlphaOptions feature gate');
  if (c.tlsMinVersion && !Object.hasOwn(TLS_VERSIONS, c.tlsMinVersion)) {
    errors.push(fieldErrors.notSupported('tlsMinVersion', c.tlsMinVersion, Object.keys(TLS_VERSIONS)));
  }
  (c.tlsCipherSuites ?? []).forEach((suite, i) => {
    if (!Object.hasOwn(TLS_CIPHER_SUITES, suite)) errors.push(fieldErrors.notSupported(`tlsCipherSuites[${i}]`, suite, Object.keys(TLS_CIPHER_SUITES)));
  });
  if (Boolean(c.tlsCertFile) !== Boolean(c.tlsPrivateKeyFile))
    invalid('tlsCertFile', c.tlsCertFile ?? '', 'tlsCertFile and tlsPrivateKeyFile must be given together');
}

/** Cross-field rules of spec 3 ("greater than", "needs gate X", "must be empty if"). */
export function nodeAgentConfigurationRules(obj: ApiObject): FieldError[] {
  const c = obj as unknown as NodeAgentConfiguration;
  const errors: FieldError[] = [];
  const found: RuleErrors = { errors, invalid: (field, value, detail) => errors.push(fieldErrors.invalid(field, value, detail)) };
  for (const rules of [relationRules, gateRules, shutdownRules, vocabularyRules]) rules(c, found);
  return errors;
}

export const nodeAgentConfigurationDefinition = defineKind({
  group: CONFIG_GROUP,
  version: CONFIG_VERSION,
  kind: 'NodeAgentConfiguration',
  resource: 'nodeagentconfigurations',
  namespaced: false,
  schema: NodeAgentConfigurationSchema,
  validationRules: [nodeAgentConfigurationRules],
});

export const nodeAgentConfigurationKind = () => compileKind(nodeAgentConfigurationDefinition);
