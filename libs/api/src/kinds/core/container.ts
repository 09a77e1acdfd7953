import { Type, type Static } from '@sinclair/typebox';
import { ATOMIC, Int32, Int64, IntOrString, ListAtomic, ListMap, Quantity, StringEnum, StringMap } from '../../schema/builders';
import { DNS1123_LABEL_MAX_LENGTH, DNS1123_LABEL_PATTERN } from '../../meta/names';

export const Protocols = ['TCP', 'UDP', 'SCTP'] as const;
export const PullPolicies = ['Always', 'Never', 'IfNotPresent'] as const;

const PortNumber = () => Int32({ minimum: 1, maximum: 65535 });

/** IANA service name: at most 15 characters, lower case alphanumerics and '-'. */
const PortName = () => Type.String({ pattern: DNS1123_LABEL_PATTERN, maxLength: 15 });

export const ContainerPortSchema = Type.Object({
  name: Type.Optional(PortName()),
  containerPort: PortNumber(),
  protocol: Type.Optional(StringEnum(Protocols, { default: 'TCP' })),
  hostPort: Type.Optional(PortNumber()),
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
  recursiveReadOnly: Type.Optional(StringEnum(['Disabled', 'IfPossible', 'Enabled'] as const)),
  subPath: Type.Optional(Type.String()),
  subPathExpr: Type.Optional(Type.String()),
  mountPropagation: Type.Optional(StringEnum(['None', 'HostToContainer', 'Bidirectional'] as const)),
});
export type VolumeMount = Static<typeof VolumeMountSchema>;

export const VolumeDeviceSchema = Type.Object({ name: Type.String(), devicePath: Type.String() });

export const HTTPGetActionSchema = Type.Object({
  path: Type.Optional(Type.String({ default: '/' })),
  port: IntOrString(),
  host: Type.Optional(Type.String()),
  scheme: Type.Optional(StringEnum(['HTTP', 'HTTPS'] as const, { default: 'HTTP' })),
  httpHeaders: Type.Optional(ListAtomic(Type.Object({ name: Type.String(), value: Type.String() }))),
});

export const ExecActionSchema = Type.Object({ command: Type.Optional(ListAtomic(Type.String())) });
export const TCPSocketActionSchema = Type.Object({ port: IntOrString(), host: Type.Optional(Type.String()) });
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
