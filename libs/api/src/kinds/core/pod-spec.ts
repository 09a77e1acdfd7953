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
  activeDeadlineSeconds:
    "How long the pod may run, counted from its start, before it is stopped and marked failed (reason DeadlineExceeded); it may be added or lowered later, never raised. Not acted on by this server's node agent.",
  dnsPolicy:
    "How the pod's DNS is set up: ClusterFirst (the cluster DNS with the cluster's search domains and ndots:5, the default; the node's for a hostNetwork pod), ClusterFirstWithHostNet (the cluster DNS, hostNetwork or not), Default (the node's resolver file) or None (dnsConfig alone).",
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
  hostAliases: "Lines added to the pod's /etc/hosts, which the node agent writes.",
  'hostAliases.ip': 'The address the names resolve to.',
  'hostAliases.hostnames': 'The names for that address.',
  priorityClassName: "The PriorityClass that sets the pod's priority.",
  priority: "The pod's priority, filled in from its priority class at creation: higher ones are scheduled first and preempted last.",
  dnsConfig: 'DNS settings merged into those dnsPolicy makes.',
  'dnsConfig.nameservers': 'Further name servers (IP addresses), at most three; at least one with dnsPolicy None.',
  'dnsConfig.searches': 'Further search domains, at most 32 in 2048 characters.',
  'dnsConfig.options': 'Resolver options, such as ndots.',
  'dnsConfig.options.name': "The option's name.",
  'dnsConfig.options.value': "The option's value, if it takes one.",
  readinessGates: 'Further conditions that must be True for the pod to be ready.',
  'readinessGates.conditionType': "The type of a condition in the pod's status.",
  runtimeClassName: "The RuntimeClass whose handler runs the pod's containers. This server serves no RuntimeClass, so a pod naming one is refused.",
  enableServiceLinks:
    "Whether the services of the namespace are announced to the containers as environment variables, as Docker links did; true by default. With false only the `kubernetes` Service's KUBERNETES_SERVICE_* variables are set.",
  preemptionPolicy:
    "Whether the pod may preempt pods of lower priority: PreemptLowerPriority (the default) or Never. This server's scheduler preempts no pod yet.",
  overhead: "The resources running the pod costs beyond its containers', set from its RuntimeClass.",
  topologySpreadConstraints:
    "How the pod and its like are spread across zones, nodes or other topology domains. This server's scheduler does not act on them yet.",
  setHostnameAsFQDN:
    "Whether the pod's kernel host name is its fully qualified domain name (`<hostname>.<subdomain>.<namespace>.svc.<cluster domain>`, at most 64 characters) when it has a subdomain; false by default.",
  os: "The operating system the pod's containers need.",
  'os.name': 'linux or windows.',
  hostUsers: "Whether the pod uses the node's user namespace (true, the default); false gives it one of its own. Not acted on by this server's node agent.",
  schedulingGates: 'While any is left, the pod is not scheduled; controllers remove them when the pod may go.',
  'schedulingGates.name': "The gate's name, unique in the pod.",
  resourceClaims: 'Resources (devices, above all) the pod claims through ResourceClaims. This server serves no ResourceClaim, so nothing allocates them.',
  resources: 'Resources for the pod as a whole, which its containers share.',
});
(PodSpecSchema as { description?: string }).description = 'What a pod runs and how: its containers, volumes, placement and security.';
describeFields(PodTemplateSpecSchema, {
  metadata: 'Labels and annotations of the pods made from the template.',
  spec: 'The spec of the pods made from the template.',
});
(PodTemplateSpecSchema as { description?: string }).description = 'The pods a workload makes, as a template.';

const NOT_ACTED_ON = "Not acted on by this server's node agent.";

describeFields(
  TolerationSchema,
  {
    key: 'The taint key to match; empty matches every key, and then operator must be Exists.',
    operator: 'Equal (the default) matches a taint with the same value; Exists matches any value, and value must then be empty.',
    value: 'The taint value to match, with Equal.',
    effect: 'The taint effect to match: NoSchedule, PreferNoSchedule or NoExecute; empty matches every effect.',
    tolerationSeconds:
      'For effect NoExecute: how long the pod may stay on a node once the taint is there, before it is evicted. Left out, it stays for good; 0 or less, it is evicted at once.',
  },
  'A node taint the pod accepts: the pod may be placed on, or stay on, a node with a matching taint.',
);

describeFields(
  PodSecurityContextSchema,
  {
    seLinuxOptions: `The SELinux label of every container; the runtime picks one when it is left out. ${NOT_ACTED_ON}`,
    windowsOptions: "Settings for Windows nodes. This server's node agent runs on Linux and ignores them.",
    runAsUser: "The user ID every container's processes run as; the image's user by default.",
    runAsGroup: "The primary group ID of every container's processes; the image's by default.",
    runAsNonRoot: `When true, a container that would run as user 0 is not started. ${NOT_ACTED_ON}`,
    supplementalGroups: "Further group IDs of each container's first process, beside its primary group and fsGroup.",
    supplementalGroupsPolicy: `Merge (the default) also gives the groups the image's /etc/group lists for the user; Strict gives only those set here. ${NOT_ACTED_ON}`,
    fsGroup:
      "A group ID added to every container's groups, which also comes to own the volumes that allow it (files group-writable, new files in that group). This server's node agent adds the group but changes the ownership of no volume.",
    fsGroupChangePolicy: `When a volume's ownership is changed to fsGroup: Always (at every mount, the default) or OnRootMismatch (only when its root does not match yet). ${NOT_ACTED_ON}`,
    sysctls: `Namespaced kernel parameters set for the pod; unsafe ones must be allowed on the node. ${NOT_ACTED_ON}`,
    'sysctls.name': "The parameter's name, such as `net.ipv4.ip_local_port_range`.",
    'sysctls.value': "The parameter's value.",
    seccompProfile: `The seccomp profile of every container that sets none of its own. ${NOT_ACTED_ON}`,
    appArmorProfile: `The AppArmor profile of every container that sets none of its own. ${NOT_ACTED_ON}`,
    seLinuxChangePolicy: `How volumes get the pod's SELinux label: MountOption (a mount option, fast) or Recursive (every file relabelled). ${NOT_ACTED_ON}`,
  },
  "Security settings of every container of a pod and of its volumes; a container's own securityContext wins where both set a field.",
);

describeFields(
  TopologySpreadConstraintSchema,
  {
    maxSkew:
      'How many more matching pods one domain may hold than the emptiest eligible one; at least 1. A limit with DoNotSchedule, a preference with ScheduleAnyway.',
    topologyKey: 'The node label whose values are the domains, such as topology.kubernetes.io/zone or kubernetes.io/hostname; a node without it is in none.',
    whenUnsatisfiable: 'DoNotSchedule leaves the pod pending rather than exceed maxSkew; ScheduleAnyway places it where the skew grows least.',
    labelSelector: 'Which pods are counted in each domain.',
    minDomains:
      'The fewest eligible domains to count on: while there are fewer, the emptiest is taken to hold 0 pods, so new pods wait rather than crowd the ones there are. With DoNotSchedule only.',
    nodeAffinityPolicy: "Honor (the default) counts only the nodes the pod's nodeAffinity and nodeSelector allow; Ignore counts every node.",
    nodeTaintsPolicy: 'Honor counts only the nodes whose taints the pod tolerates; Ignore (the default) counts every node.',
    matchLabelKeys:
      'Label keys whose values, taken from the pod being placed, are added to labelSelector, so that each revision (pod-template-hash) is spread on its own.',
  },
  "How the pods a selector matches are spread across the domains of a topology, such as zones or nodes. This server's scheduler does not act on it yet.",
);
