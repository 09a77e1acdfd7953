import { Type, type Static } from '@sinclair/typebox';
import { describeFields, FreeForm, Int32, Int64, ListAtomic, ListMap, StringEnum, StringMap, StringStringMap, Quantity } from '../../schema/builders';
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
// Enum values are listed in the order Kubernetes' validation lists them when a value is not supported.
export const DNSPolicies = ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'] as const;
export const TaintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

export const TolerationSchema = Type.Object({
  key: Type.Optional(Type.String()),
  operator: Type.Optional(StringEnum(['Equal', 'Exists'] as const)),
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

// What `kubectl explain` says of each field, in this project's words.
describeFields(PodSpecSchema, {
  volumes: "The volumes the pod's containers may mount.",
  initContainers:
    'Containers run one after another, each to completion, before the app containers start; one with restartPolicy Always is a sidecar that keeps running.',
  containers: 'The app containers, started together once the init containers are done. At least one.',
  ephemeralContainers: "Debug containers added to the running pod through its ephemeralcontainers subresource; never part of a pod's creation.",
  restartPolicy: "When the pod's containers are restarted after they end: Always, OnFailure or Never. Always by default.",
  terminationGracePeriodSeconds: 'How long the pod has to stop after it is asked to, before its processes are killed; 30 by default.',
  activeDeadlineSeconds: 'How long the pod may run, counted from its start, before it is stopped and marked failed.',
  dnsPolicy:
    "How the pod's DNS is set up: ClusterFirst (the cluster DNS, the default), ClusterFirstWithHostNet, Default (the node's) or None (dnsConfig alone).",
  nodeSelector: 'Labels a node must carry for the pod to be placed on it.',
  serviceAccountName: 'The ServiceAccount the pod runs as; `default` by default.',
  serviceAccount: 'Deprecated name of serviceAccountName.',
  automountServiceAccountToken: "Whether the service account's token is mounted into the containers; the ServiceAccount decides by default.",
  nodeName: 'The node the pod runs on, set by the scheduler when it binds the pod. Set at creation, it skips the scheduler.',
  hostNetwork: "Whether the pod uses the node's network namespace rather than one of its own.",
  hostPID: "Whether the pod sees the node's processes.",
  hostIPC: "Whether the pod uses the node's IPC namespace.",
  shareProcessNamespace: "Whether the containers of the pod see each other's processes.",
  securityContext: 'Security settings for every container of the pod, unless a container sets its own.',
  imagePullSecrets: "Secrets with registry credentials used to pull the pod's images.",
  hostname: "The pod's host name; its name by default.",
  subdomain: 'With hostname, gives the pod the name `<hostname>.<subdomain>.<namespace>.svc.<cluster domain>` when a headless service of that name exists.',
  affinity: 'Rules placing the pod near or away from nodes and other pods.',
  schedulerName: 'The scheduler that places the pod; the default one by default.',
  tolerations: 'The node taints the pod accepts.',
  hostAliases: "Lines added to the pod's /etc/hosts.",
  'hostAliases.ip': 'The address the names resolve to.',
  'hostAliases.hostnames': 'The names for that address.',
  priorityClassName: "The PriorityClass that sets the pod's priority.",
  priority: "The pod's priority, filled in from its priority class; higher placed first and preempted last.",
  dnsConfig: 'DNS settings merged into those dnsPolicy makes.',
  'dnsConfig.nameservers': 'Further name servers, at most three in all.',
  'dnsConfig.searches': 'Further search domains.',
  'dnsConfig.options': 'Resolver options, such as ndots.',
  'dnsConfig.options.name': "The option's name.",
  'dnsConfig.options.value': "The option's value, if it takes one.",
  readinessGates: 'Further conditions that must be True for the pod to be ready.',
  'readinessGates.conditionType': "The type of a condition in the pod's status.",
  runtimeClassName: "The RuntimeClass whose handler runs the pod's containers.",
  enableServiceLinks: 'Whether the services of the namespace are announced to the containers as environment variables, as Docker links did; true by default.',
  preemptionPolicy: 'Whether the pod may preempt pods of lower priority: PreemptLowerPriority (the default) or Never.',
  overhead: "The resources running the pod costs beyond its containers', set from its RuntimeClass.",
  topologySpreadConstraints: 'How the pod and its like are spread across zones, nodes or other topology domains.',
  setHostnameAsFQDN: "Whether the pod's host name is its fully qualified domain name.",
  os: "The operating system the pod's containers need.",
  'os.name': 'linux or windows.',
  hostUsers: "Whether the pod uses the node's user namespace; false gives it one of its own.",
  schedulingGates: 'While any is left, the pod is not scheduled; controllers remove them when the pod may go.',
  'schedulingGates.name': "The gate's name, unique in the pod.",
  resourceClaims: 'Resources (devices, above all) the pod claims through ResourceClaims.',
  resources: 'Resources for the pod as a whole, which its containers share.',
});
(PodSpecSchema as { description?: string }).description = 'What a pod runs and how: its containers, volumes, placement and security.';
describeFields(PodTemplateSpecSchema, {
  metadata: 'Labels and annotations of the pods made from the template.',
  spec: 'The spec of the pods made from the template.',
});
(PodTemplateSpecSchema as { description?: string }).description = 'The pods a workload makes, as a template.';
