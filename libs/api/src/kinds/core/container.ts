import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, describeFields, Int32, Int64, IntOrString, ListAtomic, ListMap, Quantity, StringEnum, StringMap } from '../../schema/builders';
import { DNS1123_LABEL_MAX_LENGTH, DNS1123_LABEL_PATTERN, PORT_NAME_PATTERN } from '../../meta/names';

/** In the order Kubernetes lists them when a protocol is not supported (sorted). */
export const Protocols = ['SCTP', 'TCP', 'UDP'] as const;
export const PullPolicies = ['Always', 'IfNotPresent', 'Never'] as const;

/** A port given by number or by the name of a container's port, as probes and services give it. */
export const PortNumberOrName = () => IntOrString({ minimum: 1, maximum: 65535, pattern: PORT_NAME_PATTERN });

/** IANA service name: at most 15 characters, lower case alphanumerics and '-'. */
const PortName = () => Type.String({ pattern: PORT_NAME_PATTERN });

// Port numbers are checked by the pod spec rules: 0 is an unset containerPort (required) and an unset hostPort.
export const ContainerPortSchema = Type.Object({
  name: Type.Optional(PortName()),
  containerPort: Int32(),
  protocol: Type.Optional(StringEnum(Protocols, { default: 'TCP' })),
  hostPort: Type.Optional(Int32()),
  hostIP: Type.Optional(Type.String()),
});
export type ContainerPort = Static<typeof ContainerPortSchema>;

const KeySelector = (description: string) =>
  Type.Object(
    {
      name: Type.Optional(Type.String()),
      key: Type.String(),
      optional: Type.Optional(Type.Boolean()),
    },
    { ...ATOMIC, description },
  );

export const ObjectFieldSelectorSchema = Type.Object({ apiVersion: Type.Optional(Type.String({ default: 'v1' })), fieldPath: Type.String() }, ATOMIC);

export const ResourceFieldSelectorSchema = Type.Object(
  { containerName: Type.Optional(Type.String()), resource: Type.String(), divisor: Type.Optional(Quantity()) },
  ATOMIC,
);

export const ConfigMapKeySelectorSchema = KeySelector('A key of a ConfigMap in the namespace of the pod.');
export const SecretKeySelectorSchema = KeySelector('A key of a Secret in the namespace of the pod.');
export const FileKeySelectorSchema = Type.Object(
  { volumeName: Type.String(), path: Type.String(), key: Type.String(), optional: Type.Optional(Type.Boolean()) },
  { ...ATOMIC, description: "A key of an environment file in one of the pod's volumes." },
);

export const EnvVarSourceSchema = Type.Object(
  {
    fieldRef: Type.Optional(ObjectFieldSelectorSchema),
    resourceFieldRef: Type.Optional(ResourceFieldSelectorSchema),
    configMapKeyRef: Type.Optional(ConfigMapKeySelectorSchema),
    secretKeyRef: Type.Optional(SecretKeySelectorSchema),
    fileKeyRef: Type.Optional(FileKeySelectorSchema),
  },
  { description: 'Where the value of an environment variable comes from, instead of a literal value: exactly one source.' },
);

export const EnvVarSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  value: Type.Optional(Type.String()),
  valueFrom: Type.Optional(EnvVarSourceSchema),
});
export type EnvVar = Static<typeof EnvVarSchema>;

const OptionalNameRef = (description: string) =>
  Type.Object({ name: Type.Optional(Type.String()), optional: Type.Optional(Type.Boolean()) }, { ...ATOMIC, description });

export const ConfigMapEnvSourceSchema = OptionalNameRef('A ConfigMap whose keys all become environment variables.');
export const SecretEnvSourceSchema = OptionalNameRef('A Secret whose keys all become environment variables.');

export const EnvFromSourceSchema = Type.Object({
  prefix: Type.Optional(Type.String()),
  configMapRef: Type.Optional(ConfigMapEnvSourceSchema),
  secretRef: Type.Optional(SecretEnvSourceSchema),
});
export type EnvFromSource = Static<typeof EnvFromSourceSchema>;

export const ResourceListSchema = StringMap(Quantity());

export const ResourceRequirementsSchema = Type.Object({
  limits: Type.Optional(ResourceListSchema),
  requests: Type.Optional(ResourceListSchema),
  claims: Type.Optional(ListMap(Type.Object({ name: Type.String(), request: Type.Optional(Type.String()) }), ['name'])),
});
export type ResourceRequirements = Static<typeof ResourceRequirementsSchema>;

export const VolumeMountSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  mountPath: Type.String({ minLength: 1 }),
  readOnly: Type.Optional(Type.Boolean()),
  recursiveReadOnly: Type.Optional(StringEnum(['Disabled', 'Enabled', 'IfPossible'] as const)),
  subPath: Type.Optional(Type.String()),
  subPathExpr: Type.Optional(Type.String()),
  mountPropagation: Type.Optional(StringEnum(['Bidirectional', 'HostToContainer', 'None'] as const)),
});
export type VolumeMount = Static<typeof VolumeMountSchema>;

export const VolumeDeviceSchema = Type.Object({ name: Type.String(), devicePath: Type.String() });

export const HTTPGetActionSchema = Type.Object({
  path: Type.Optional(Type.String({ default: '/' })),
  port: PortNumberOrName(),
  host: Type.Optional(Type.String()),
  scheme: Type.Optional(StringEnum(['HTTP', 'HTTPS'] as const, { default: 'HTTP' })),
  httpHeaders: Type.Optional(ListAtomic(Type.Object({ name: Type.String(), value: Type.String() }))),
});

export const ExecActionSchema = Type.Object({ command: Type.Optional(ListAtomic(Type.String())) });
export const TCPSocketActionSchema = Type.Object({ port: PortNumberOrName(), host: Type.Optional(Type.String()) });
export const GRPCActionSchema = Type.Object({
  port: Int32({ minimum: 1, maximum: 65535 }),
  service: Type.Optional(Type.String({ default: '' })),
});

export const ProbeSchema = Type.Object({
  exec: Type.Optional(ExecActionSchema),
  httpGet: Type.Optional(HTTPGetActionSchema),
  tcpSocket: Type.Optional(TCPSocketActionSchema),
  grpc: Type.Optional(GRPCActionSchema),
  initialDelaySeconds: Type.Optional(Int32({ minimum: 0 })),
  timeoutSeconds: Type.Optional(Int32({ minimum: 0, default: 1 })),
  periodSeconds: Type.Optional(Int32({ minimum: 0, default: 10 })),
  successThreshold: Type.Optional(Int32({ minimum: 0, default: 1 })),
  failureThreshold: Type.Optional(Int32({ minimum: 0, default: 3 })),
  terminationGracePeriodSeconds: Type.Optional(Int64({ minimum: 1 })),
});
export type Probe = Static<typeof ProbeSchema>;

export const LifecycleHandlerSchema = Type.Object({
  exec: Type.Optional(ExecActionSchema),
  httpGet: Type.Optional(HTTPGetActionSchema),
  tcpSocket: Type.Optional(TCPSocketActionSchema),
  sleep: Type.Optional(Type.Object({ seconds: Int64({ minimum: 0 }) })),
});

export const LifecycleSchema = Type.Object({
  postStart: Type.Optional(LifecycleHandlerSchema),
  preStop: Type.Optional(LifecycleHandlerSchema),
  stopSignal: Type.Optional(Type.String()),
});

export const SELinuxOptionsSchema = Type.Object({
  user: Type.Optional(Type.String()),
  role: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  level: Type.Optional(Type.String()),
});

export const WindowsSecurityContextOptionsSchema = Type.Object({
  gmsaCredentialSpecName: Type.Optional(Type.String()),
  gmsaCredentialSpec: Type.Optional(Type.String()),
  runAsUserName: Type.Optional(Type.String()),
  hostProcess: Type.Optional(Type.Boolean()),
});

export const SeccompProfileSchema = Type.Object({
  type: StringEnum(['Unconfined', 'RuntimeDefault', 'Localhost'] as const),
  localhostProfile: Type.Optional(Type.String()),
});

export const AppArmorProfileSchema = SeccompProfileSchema;

export const SecurityContextSchema = Type.Object({
  capabilities: Type.Optional(Type.Object({ add: Type.Optional(ListAtomic(Type.String())), drop: Type.Optional(ListAtomic(Type.String())) })),
  privileged: Type.Optional(Type.Boolean()),
  seLinuxOptions: Type.Optional(SELinuxOptionsSchema),
  windowsOptions: Type.Optional(WindowsSecurityContextOptionsSchema),
  runAsUser: Type.Optional(Int64({ minimum: 0 })),
  runAsGroup: Type.Optional(Int64({ minimum: 0 })),
  runAsNonRoot: Type.Optional(Type.Boolean()),
  readOnlyRootFilesystem: Type.Optional(Type.Boolean()),
  allowPrivilegeEscalation: Type.Optional(Type.Boolean()),
  procMount: Type.Optional(StringEnum(['Default', 'Unmasked'] as const)),
  seccompProfile: Type.Optional(SeccompProfileSchema),
  appArmorProfile: Type.Optional(AppArmorProfileSchema),
});
export type SecurityContext = Static<typeof SecurityContextSchema>;

const ContainerName = () => Type.String({ pattern: DNS1123_LABEL_PATTERN, maxLength: DNS1123_LABEL_MAX_LENGTH });

function containerProperties() {
  return {
    name: ContainerName(),
    image: Type.String({ minLength: 1 }),
    command: Type.Optional(ListAtomic(Type.String())),
    args: Type.Optional(ListAtomic(Type.String())),
    workingDir: Type.Optional(Type.String()),
    ports: Type.Optional(ListMap(ContainerPortSchema, ['containerPort', 'protocol'])),
    envFrom: Type.Optional(ListAtomic(EnvFromSourceSchema)),
    env: Type.Optional(ListMap(EnvVarSchema, ['name'])),
    resources: Type.Optional(ResourceRequirementsSchema),
    resizePolicy: Type.Optional(
      ListAtomic(Type.Object({ resourceName: Type.String(), restartPolicy: StringEnum(['NotRequired', 'RestartContainer'] as const) })),
    ),
    restartPolicy: Type.Optional(StringEnum(['Always'] as const)),
    volumeMounts: Type.Optional(ListMap(VolumeMountSchema, ['mountPath'])),
    volumeDevices: Type.Optional(ListMap(VolumeDeviceSchema, ['devicePath'])),
    livenessProbe: Type.Optional(ProbeSchema),
    readinessProbe: Type.Optional(ProbeSchema),
    startupProbe: Type.Optional(ProbeSchema),
    lifecycle: Type.Optional(LifecycleSchema),
    terminationMessagePath: Type.Optional(Type.String({ default: '/dev/termination-log' })),
    terminationMessagePolicy: Type.Optional(StringEnum(['File', 'FallbackToLogsOnError'] as const, { default: 'File' })),
    imagePullPolicy: Type.Optional(StringEnum(PullPolicies)),
    securityContext: Type.Optional(SecurityContextSchema),
    stdin: Type.Optional(Type.Boolean()),
    stdinOnce: Type.Optional(Type.Boolean()),
    tty: Type.Optional(Type.Boolean()),
  };
}

export const ContainerSchema = Type.Object(containerProperties());
export type Container = Static<typeof ContainerSchema>;

/** Debug containers added through the `ephemeralcontainers` subresource; no ports or probes are honoured. */
export const EphemeralContainerSchema = Type.Object({
  ...containerProperties(),
  targetContainerName: Type.Optional(Type.String()),
});

// What `kubectl explain` says of each field, in this project's words.
const CONTAINER_FIELDS = {
  name: "The container's name, a DNS label unique among the pod's containers. It cannot change.",
  image: 'The image to run, as a registry reference such as `registry.example/app:1.2`. A workload template may leave it out; a pod may not.',
  command: "The program to run, replacing the image's ENTRYPOINT. `$(VAR)` is replaced by the variable's value; `$$(VAR)` stays as written. Runs in no shell.",
  args: "The program's arguments, replacing the image's CMD. `$(VAR)` is expanded as in command.",
  workingDir: "The directory the program starts in; the image's own by default.",
  ports:
    'The ports the container listens on. Informational for the most part: a port not listed is still reachable. Listing one names it for services and probes.',
  envFrom: 'Sources whose every key becomes an environment variable (a ConfigMap or a Secret). A key given again in env wins; among sources the last wins.',
  env: 'Environment variables to set in the container.',
  resources: 'The compute resources the container asks for (requests, used for scheduling) and may not exceed (limits).',
  resizePolicy: "How the container takes a change of its resources while running: in place, or by restarting. Not acted on by this server's node agent.",
  'resizePolicy.resourceName': 'The resource the policy is for: cpu or memory.',
  'resizePolicy.restartPolicy': 'NotRequired (the change is applied in place) or RestartContainer.',
  restartPolicy:
    "For init containers only: `Always` makes it a sidecar that starts before the app containers and runs beside them. This server's node agent does not run sidecars yet: it waits for such a container to end, as for any init container.",
  volumeMounts: "Where the pod's volumes appear in the container's filesystem.",
  volumeDevices: "Block volumes the container sees as raw devices. Not acted on by this server's node agent.",
  livenessProbe: 'The check that the container still works; after enough failures it is restarted.',
  readinessProbe: 'The check that the container can serve; while it fails the pod is left out of service endpoints.',
  startupProbe: 'The check that the container has started; the other probes wait for it, and after enough failures the container is restarted.',
  lifecycle: 'Actions run right after the container starts and right before it is stopped.',
  terminationMessagePath: 'The file the container may write why it ended into, read when it stops; /dev/termination-log by default.',
  terminationMessagePolicy:
    'File reads only the termination message file; FallbackToLogsOnError uses the end of the log when that file is empty and the container failed.',
  imagePullPolicy: 'When to pull the image: Always, Never or IfNotPresent. Always for `:latest` or no tag, IfNotPresent otherwise.',
  securityContext: "The security settings of this container, over the pod's.",
  stdin: 'Whether the container keeps a stdin open for attach; without it reads from stdin see end of file.',
  stdinOnce: 'Whether stdin closes for good after the first attached client leaves, rather than staying open for the next.',
  tty: 'Whether the container gets a terminal; needs stdin.',
};

describeFields(ContainerSchema, CONTAINER_FIELDS);
describeFields(EphemeralContainerSchema, {
  ...CONTAINER_FIELDS,
  targetContainerName: 'The container whose namespaces (processes, above all) this debug container joins; none by default.',
});
(ContainerSchema as { description?: string }).description = 'One program the pod runs, in its own filesystem, from an image.';
(EphemeralContainerSchema as { description?: string }).description =
  'A container added to a running pod to inspect it (`kubectl debug`). It has no ports, probes or resources, starts once in the running pod and is never restarted.';

describeFields(ContainerPortSchema, {
  name: 'A name for the port, unique in the pod, that services and probes may use in place of its number.',
  containerPort: 'The port number the container listens on.',
  protocol: 'TCP, UDP or SCTP; TCP by default.',
  hostPort: 'A port of the node forwarded to this one; few pods need it, and it limits where the pod can run.',
  hostIP: 'The node address hostPort is bound on.',
});

const KEY_SELECTOR = (what: string) => ({
  name: `The ${what} to read, in the pod's namespace.`,
  key: `The key of the ${what} whose value is taken.`,
  optional: `Whether the container starts when the ${what} or its key is missing.`,
});

describeFields(EnvVarSchema, {
  name: "The variable's name.",
  value: "The variable's value. `$(VAR)` is replaced by an earlier variable's value; `$$(VAR)` stays as written. Empty by default.",
  valueFrom: 'Where the value comes from, when it is not given.',
  'valueFrom.fieldRef': 'A field of the pod: metadata.name, metadata.namespace, a label or annotation, spec.nodeName, status.podIP and the like.',
  'valueFrom.resourceFieldRef': 'A request or limit of a container: limits.cpu, requests.memory and the like.',
  'valueFrom.configMapKeyRef': 'A key of a ConfigMap.',
  ...Object.fromEntries(Object.entries(KEY_SELECTOR('ConfigMap')).map(([k, v]) => [`valueFrom.configMapKeyRef.${k}`, v])),
  'valueFrom.secretKeyRef': 'A key of a Secret.',
  ...Object.fromEntries(Object.entries(KEY_SELECTOR('Secret')).map(([k, v]) => [`valueFrom.secretKeyRef.${k}`, v])),
  'valueFrom.fileKeyRef': "A key of an env file in one of the pod's volumes. Not acted on by this server's node agent.",
  'valueFrom.fileKeyRef.volumeName': 'The volume holding the file.',
  'valueFrom.fileKeyRef.path': "The file's path inside the volume.",
  'valueFrom.fileKeyRef.key': 'The key in the file whose value is taken.',
  'valueFrom.fileKeyRef.optional': 'Whether the container starts when the file or its key is missing.',
});
(EnvVarSchema as { description?: string }).description = 'An environment variable of a container.';

describeFields(EnvFromSourceSchema, {
  prefix: 'A prefix put before every key taken from the source.',
  configMapRef: 'The ConfigMap whose keys become variables.',
  'configMapRef.name': "The ConfigMap's name, in the pod's namespace.",
  'configMapRef.optional': 'Whether the container starts when the ConfigMap is missing.',
  secretRef: 'The Secret whose keys become variables.',
  'secretRef.name': "The Secret's name, in the pod's namespace.",
  'secretRef.optional': 'Whether the container starts when the Secret is missing.',
});

describeFields(ResourceRequirementsSchema, {
  limits: 'The most of each resource the container may use: more CPU is throttled, more memory ends the container.',
  requests: 'The amount of each resource the container is counted as using when placed on a node; the limit by default when only that is given.',
  claims: 'Resource claims of the pod this container uses.',
  'claims.name': "The name of one of the pod's resourceClaims.",
  'claims.request': 'The request of that claim to use; all of them by default.',
});
(ResourceRequirementsSchema as { description?: string }).description = 'What a container asks for (requests) and may not exceed (limits) of each resource.';

describeFields(VolumeMountSchema, {
  name: 'The pod volume to mount, by its name.',
  mountPath: 'Where in the container the volume appears; it may not contain `:`.',
  readOnly: 'Whether the mount is read-only; false by default.',
  recursiveReadOnly:
    "Whether mounts below a read-only mount are read-only too: Disabled (the default), IfPossible or Enabled. Not acted on by this server's node agent.",
  subPath: 'A path inside the volume to mount instead of its root.',
  subPathExpr: "Like subPath, with `$(VAR)` replaced by the container's environment; the two exclude each other. Not acted on by this server's node agent.",
  mountPropagation: 'Whether mounts made later on the host or in the container are seen on the other side: None, HostToContainer or Bidirectional.',
});

const NOT_ACTED_ON = "Not acted on by this server's node agent.";

(ContainerPortSchema as { description?: string }).description = 'A port a container listens on.';
(EnvFromSourceSchema as { description?: string }).description = 'A ConfigMap or Secret whose every key becomes an environment variable.';
(VolumeMountSchema as { description?: string }).description = 'A volume of the pod, mounted into a container.';

describeFields(
  ObjectFieldSelectorSchema,
  {
    apiVersion: 'The version of the schema fieldPath is written in; `v1` by default.',
    fieldPath:
      "The field to read: metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, spec.serviceAccountName, status.hostIP(s) or status.podIP(s). Volumes take only the metadata ones, and whole metadata.labels or metadata.annotations.",
  },
  'A field of the pod, given to its containers as a value.',
);
describeFields(
  ResourceFieldSelectorSchema,
  {
    containerName: 'The container whose resource is read: required in a volume, the container itself in an environment variable.',
    resource: 'limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu, requests.memory or requests.ephemeral-storage (hugepages too).',
    divisor: 'The unit the value is given in, rounded up: `1m` gives CPU in millicores, `1Mi` memory in mebibytes. 1 by default.',
  },
  'A request or limit of a container, given to the containers as a value. A limit left out is the allocatable amount of the node.',
);
describeFields(
  VolumeDeviceSchema,
  {
    name: 'The persistentVolumeClaim volume of the pod to use.',
    devicePath: 'Where in the container the device appears.',
  },
  `A block volume the container sees as a raw device. ${NOT_ACTED_ON}`,
);

describeFields(
  HTTPGetActionSchema,
  {
    path: 'The path to ask for; `/` by default.',
    port: "The port to connect to: a number from 1 to 65535, or the name of one of the container's ports.",
    host: "The host to connect to; the pod's IP by default. To send another Host header, set it in httpHeaders instead.",
    scheme: 'HTTP or HTTPS; HTTP by default. Over HTTPS the certificate is not verified.',
    httpHeaders: 'Headers sent with the request; names are compared without regard to case.',
    'httpHeaders.name': "The header's name.",
    'httpHeaders.value': "The header's value.",
  },
  'A check or hook made as an HTTP GET to the container: any status from 200 to 399 is success.',
);
describeFields(
  ExecActionSchema,
  {
    command:
      "The command to run in the container, from its root directory; no shell runs it unless it starts one (`['sh', '-c', '...']`). Exit status 0 is success.",
  },
  'A command run inside the container.',
);
describeFields(
  TCPSocketActionSchema,
  {
    port: "The port to connect to: a number from 1 to 65535, or the name of one of the container's ports.",
    host: "The host to connect to; the pod's IP by default.",
  },
  'A check that a TCP connection to the container can be opened: connecting is success.',
);
describeFields(
  GRPCActionSchema,
  {
    port: 'The port of the gRPC server, from 1 to 65535.',
    service: 'The service name sent in the health check request (grpc.health.v1.Health); empty, the default, asks after the server as a whole.',
  },
  "A check through gRPC's health checking protocol: SERVING is success.",
);

describeFields(
  ProbeSchema,
  {
    exec: 'Run a command in the container.',
    httpGet: 'Make an HTTP GET request to the container.',
    tcpSocket: 'Open a TCP connection to the container.',
    grpc: "Ask the container's gRPC health service.",
    initialDelaySeconds: 'How long after the container starts the first check is made; 0 by default.',
    timeoutSeconds: 'How long one check may take before it counts as failed; 1 by default, at least 1.',
    periodSeconds: 'How often the check is made; 10 by default, at least 1.',
    successThreshold: 'How many checks in a row must pass, after a failure, for the probe to pass; 1 by default, and always 1 for liveness and startup probes.',
    failureThreshold: 'How many checks in a row must fail for the probe to fail; 3 by default, at least 1.',
    terminationGracePeriodSeconds:
      "For liveness and startup probes: the grace period a container stopped for failing the probe gets, in place of the pod's terminationGracePeriodSeconds. At least 1.",
  },
  'A check the node agent makes on a container at intervals, by exactly one of exec, httpGet, tcpSocket or grpc.',
);

describeFields(
  LifecycleHandlerSchema,
  {
    exec: 'Run a command in the container.',
    httpGet: 'Make an HTTP GET request to the container.',
    tcpSocket: "Deprecated: Kubernetes' node agent fails a hook given this way. This server's node agent opens a TCP connection instead.",
    sleep: "Wait a number of seconds. This server's node agent honours it in preStop only.",
    'sleep.seconds': 'How many seconds to wait.',
  },
  'One hook action: exactly one of exec, httpGet or sleep.',
);
describeFields(
  LifecycleSchema,
  {
    postStart:
      'Run right after the container is created, beside its program. When it fails, the container is killed and restarted as the restart policy says; nothing else happens to the container until it ends.',
    preStop:
      'Run before the container is stopped by an API request or by the node agent (a failed liveness probe, preemption), never when it ends by itself. It counts against the grace period; then the container gets its stop signal.',
    stopSignal: `The signal that stops the container, such as SIGTERM; the image's STOPSIGNAL by default. Needs spec.os.name. ${NOT_ACTED_ON}`,
  },
  'Hooks the node agent runs when a container starts and before it is stopped.',
);

describeFields(
  SELinuxOptionsSchema,
  {
    user: 'The SELinux user of the label.',
    role: 'The SELinux role of the label.',
    type: 'The SELinux type of the label.',
    level: 'The SELinux level of the label, such as `s0:c123,c456`.',
  },
  `An SELinux label for a container's processes and volumes. ${NOT_ACTED_ON}`,
);
describeFields(
  WindowsSecurityContextOptionsSchema,
  {
    gmsaCredentialSpecName: 'The GMSACredentialSpec object whose group managed service account the container uses.',
    gmsaCredentialSpec: 'The content of that credential spec, as JSON; the GMSA admission webhook fills it in.',
    runAsUserName: "The Windows user the container's process runs as; the image's by default.",
    hostProcess: "Whether the container runs as a process of the Windows host, on the node's network; every container of the pod must say the same.",
  },
  "Settings for containers on Windows nodes. This server's node agent runs on Linux and ignores them.",
);
describeFields(
  SeccompProfileSchema,
  {
    type: "RuntimeDefault (the container runtime's own profile), Localhost (a profile on the node, named by localhostProfile) or Unconfined (none).",
    localhostProfile:
      "With type Localhost only: for seccomp, the profile file's path under the node agent's seccomp directory; for AppArmor, the name of a profile loaded on the node.",
  },
  'A seccomp or AppArmor profile for a container.',
);

const SECURITY_FIELDS = {
  seLinuxOptions: `The SELinux label of the processes; the runtime picks one when it is left out. ${NOT_ACTED_ON}`,
  windowsOptions: "Settings for Windows nodes. This server's node agent runs on Linux and ignores them.",
  runAsUser: "The user ID the processes run as; the image's user by default.",
  runAsGroup: "The primary group ID of the processes; the image's by default.",
  runAsNonRoot: `When true, a container that would run as user 0 is not started. ${NOT_ACTED_ON}`,
  seccompProfile: `The seccomp profile the processes run under. ${NOT_ACTED_ON}`,
  appArmorProfile: `The AppArmor profile the processes run under. ${NOT_ACTED_ON}`,
};
describeFields(
  SecurityContextSchema,
  {
    ...SECURITY_FIELDS,
    capabilities: "Linux capabilities added to or dropped from the runtime's default set.",
    'capabilities.add': 'Capabilities to add, such as NET_ADMIN.',
    'capabilities.drop': 'Capabilities to remove, such as ALL.',
    privileged: 'Whether the container runs privileged, with nearly every power root has on the node; false by default.',
    readOnlyRootFilesystem: "Whether the container's root filesystem is read-only; false by default.",
    allowPrivilegeEscalation:
      'Whether a process may gain more privileges than its parent (setuid programs, file capabilities); false sets no_new_privs. Always true for a privileged container or one with CAP_SYS_ADMIN.',
    procMount: `Default masks parts of /proc as runtimes do; Unmasked leaves it whole, for a pod with hostUsers false. ${NOT_ACTED_ON}`,
  },
  "Security settings of one container; each one set here wins over the pod's.",
);
