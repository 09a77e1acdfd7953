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

const KeySelector = () =>
  Type.Object(
    {
      name: Type.Optional(Type.String()),
      key: Type.String(),
      optional: Type.Optional(Type.Boolean()),
    },
    ATOMIC,
  );

export const ObjectFieldSelectorSchema = Type.Object({ apiVersion: Type.Optional(Type.String({ default: 'v1' })), fieldPath: Type.String() }, ATOMIC);

export const ResourceFieldSelectorSchema = Type.Object(
  { containerName: Type.Optional(Type.String()), resource: Type.String(), divisor: Type.Optional(Quantity()) },
  ATOMIC,
);

export const EnvVarSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  value: Type.Optional(Type.String()),
  valueFrom: Type.Optional(
    Type.Object({
      fieldRef: Type.Optional(ObjectFieldSelectorSchema),
      resourceFieldRef: Type.Optional(ResourceFieldSelectorSchema),
      configMapKeyRef: Type.Optional(KeySelector()),
      secretKeyRef: Type.Optional(KeySelector()),
      fileKeyRef: Type.Optional(
        Type.Object({ volumeName: Type.String(), path: Type.String(), key: Type.String(), optional: Type.Optional(Type.Boolean()) }, ATOMIC),
      ),
    }),
  ),
});
export type EnvVar = Static<typeof EnvVarSchema>;

const OptionalNameRef = () => Type.Object({ name: Type.Optional(Type.String()), optional: Type.Optional(Type.Boolean()) }, ATOMIC);

export const EnvFromSourceSchema = Type.Object({
  prefix: Type.Optional(Type.String()),
  configMapRef: Type.Optional(OptionalNameRef()),
  secretRef: Type.Optional(OptionalNameRef()),
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
  resizePolicy: 'How the container takes a change of its resources while running: in place, or by restarting.',
  'resizePolicy.resourceName': 'The resource the policy is for: cpu or memory.',
  'resizePolicy.restartPolicy': 'NotRequired (the change is applied in place) or RestartContainer.',
  restartPolicy: 'For init containers only: `Always` makes it a sidecar that starts before the app containers and runs beside them.',
  volumeMounts: "Where the pod's volumes appear in the container's filesystem.",
  volumeDevices: 'Block volumes the container sees as raw devices.',
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
  'A container added to a running pod to inspect it (`kubectl debug`). It has no ports, probes or resources, and is never restarted.';

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
  'valueFrom.fileKeyRef': "A key of an env file in one of the pod's volumes.",
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
  recursiveReadOnly: 'Whether mounts below a read-only mount are read-only too: Disabled, IfPossible or Enabled.',
  subPath: 'A path inside the volume to mount instead of its root.',
  subPathExpr: "Like subPath, with `$(VAR)` replaced by the container's environment; the two exclude each other.",
  mountPropagation: 'Whether mounts made later on the host or in the container are seen on the other side: None, HostToContainer or Bidirectional.',
});
