import { Type, type Static } from '@sinclair/typebox';
import { FreeForm, Int32, Int64, ListAtomic, ListMap, StringEnum, StringMap, StringStringMap, Quantity } from '../../schema/builders';
import { DNS1123_LABEL_MAX_LENGTH, DNS1123_LABEL_PATTERN } from '../../meta/names';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { TemplateObjectMetaSchema } from '../../meta/object-meta';
import {
  ContainerSchema,
  EphemeralContainerSchema,
  ResourceRequirementsSchema,
  SELinuxOptionsSchema,
  SeccompProfileSchema,
  AppArmorProfileSchema,
  WindowsSecurityContextOptionsSchema,
} from './container';
import { LocalObjectReferenceSchema } from './object-reference';
import { VolumeSchema } from './volume';

export const RestartPolicies = ['Always', 'OnFailure', 'Never'] as const;
export const DNSPolicies = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'] as const;
export const TaintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

export const TolerationSchema = Type.Object({
  key: Type.Optional(Type.String()),
  operator: Type.Optional(StringEnum(['Exists', 'Equal'] as const)),
  value: Type.Optional(Type.String()),
  effect: Type.Optional(StringEnum(TaintEffects)),
  tolerationSeconds: Type.Optional(Int64()),
});
export type Toleration = Static<typeof TolerationSchema>;

export const PodSecurityContextSchema = Type.Object({
  seLinuxOptions: Type.Optional(SELinuxOptionsSchema),
  windowsOptions: Type.Optional(WindowsSecurityContextOptionsSchema),
  runAsUser: Type.Optional(Int64({ minimum: 0 })),
  runAsGroup: Type.Optional(Int64({ minimum: 0 })),
  runAsNonRoot: Type.Optional(Type.Boolean()),
  supplementalGroups: Type.Optional(ListAtomic(Int64({ minimum: 0 }))),
  supplementalGroupsPolicy: Type.Optional(StringEnum(['Merge', 'Strict'] as const)),
  fsGroup: Type.Optional(Int64({ minimum: 0 })),
  fsGroupChangePolicy: Type.Optional(StringEnum(['OnRootMismatch', 'Always'] as const)),
  sysctls: Type.Optional(ListAtomic(Type.Object({ name: Type.String(), value: Type.String() }))),
  seccompProfile: Type.Optional(SeccompProfileSchema),
  appArmorProfile: Type.Optional(AppArmorProfileSchema),
  seLinuxChangePolicy: Type.Optional(Type.String()),
});

export const TopologySpreadConstraintSchema = Type.Object({
  maxSkew: Int32({ minimum: 1 }),
  topologyKey: Type.String({ minLength: 1 }),
  whenUnsatisfiable: StringEnum(['DoNotSchedule', 'ScheduleAnyway'] as const),
  labelSelector: Type.Optional(LabelSelectorSchema),
  minDomains: Type.Optional(Int32({ minimum: 1 })),
  nodeAffinityPolicy: Type.Optional(StringEnum(['Honor', 'Ignore'] as const)),
  nodeTaintsPolicy: Type.Optional(StringEnum(['Honor', 'Ignore'] as const)),
  matchLabelKeys: Type.Optional(ListAtomic(Type.String())),
});

const DNSLabel = () => Type.String({ pattern: DNS1123_LABEL_PATTERN, maxLength: DNS1123_LABEL_MAX_LENGTH });

export const PodSpecSchema = Type.Object({
  volumes: Type.Optional(ListMap(VolumeSchema, ['name'], { 'x-svc-patch-strategy': 'merge,retainKeys' })),
  initContainers: Type.Optional(ListMap(ContainerSchema, ['name'])),
  containers: ListMap(ContainerSchema, ['name'], { minItems: 1 }),
  ephemeralContainers: Type.Optional(ListMap(EphemeralContainerSchema, ['name'])),
  restartPolicy: Type.Optional(StringEnum(RestartPolicies, { default: 'Always' })),
  terminationGracePeriodSeconds: Type.Optional(Int64({ minimum: 0, default: 30 })),
  activeDeadlineSeconds: Type.Optional(Int64({ minimum: 1 })),
  dnsPolicy: Type.Optional(StringEnum(DNSPolicies, { default: 'ClusterFirst' })),
  nodeSelector: Type.Optional(StringStringMap({ 'x-svc-map-type': 'atomic' })),
  serviceAccountName: Type.Optional(Type.String()),
  /** Deprecated alias of serviceAccountName. */
  serviceAccount: Type.Optional(Type.String()),
  automountServiceAccountToken: Type.Optional(Type.Boolean()),
  nodeName: Type.Optional(Type.String()),
  hostNetwork: Type.Optional(Type.Boolean()),
  hostPID: Type.Optional(Type.Boolean()),
  hostIPC: Type.Optional(Type.Boolean()),
  shareProcessNamespace: Type.Optional(Type.Boolean()),
  securityContext: Type.Optional(Type.Object(PodSecurityContextSchema.properties, { default: {} })),
  imagePullSecrets: Type.Optional(ListMap(LocalObjectReferenceSchema, ['name'])),
  hostname: Type.Optional(DNSLabel()),
  subdomain: Type.Optional(DNSLabel()),
  affinity: Type.Optional(FreeForm()),
  schedulerName: Type.Optional(Type.String({ default: 'default-scheduler' })),
  tolerations: Type.Optional(ListAtomic(TolerationSchema)),
  hostAliases: Type.Optional(ListMap(Type.Object({ ip: Type.String(), hostnames: Type.Optional(ListAtomic(Type.String())) }), ['ip'])),
  priorityClassName: Type.Optional(Type.String()),
  priority: Type.Optional(Int32()),
  dnsConfig: Type.Optional(
    Type.Object({
      nameservers: Type.Optional(ListAtomic(Type.String())),
      searches: Type.Optional(ListAtomic(Type.String())),
      options: Type.Optional(ListAtomic(Type.Object({ name: Type.Optional(Type.String()), value: Type.Optional(Type.String()) }))),
    }),
  ),
  readinessGates: Type.Optional(ListAtomic(Type.Object({ conditionType: Type.String() }))),
  runtimeClassName: Type.Optional(Type.String()),
  enableServiceLinks: Type.Optional(Type.Boolean()),
  preemptionPolicy: Type.Optional(StringEnum(['PreemptLowerPriority', 'Never'] as const)),
  overhead: Type.Optional(StringMap(Quantity())),
  topologySpreadConstraints: Type.Optional(ListMap(TopologySpreadConstraintSchema, ['topologyKey', 'whenUnsatisfiable'])),
  setHostnameAsFQDN: Type.Optional(Type.Boolean()),
  os: Type.Optional(Type.Object({ name: StringEnum(['linux', 'windows'] as const) })),
  hostUsers: Type.Optional(Type.Boolean()),
  schedulingGates: Type.Optional(ListMap(Type.Object({ name: Type.String() }), ['name'])),
  resourceClaims: Type.Optional(ListMap(FreeForm({ required: ['name'] }), ['name'])),
  resources: Type.Optional(ResourceRequirementsSchema),
});
export type PodSpec = Static<typeof PodSpecSchema>;

export const PodTemplateSpecSchema = Type.Object({
  metadata: Type.Optional(TemplateObjectMetaSchema),
  spec: PodSpecSchema,
});
export type PodTemplateSpec = Static<typeof PodTemplateSpecSchema>;
