import { fieldInvalid, fieldNotSupported, isJsonObject, newForbidden, newInvalid, sameGroup, type FieldError } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import type { NamespaceLookup } from './namespace-lifecycle';
import { heldPodSpec } from './pod-admission';

/** The Pod Security Standards' levels, from least to most restricted. */
export type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';
const LEVELS: readonly PodSecurityLevel[] = ['privileged', 'baseline', 'restricted'];
const LABEL = 'pod-security.kubernetes.io/';

type Obj = Record<string, unknown>;
const obj = (value: unknown): Obj | undefined => (isJsonObject(value) ? value : undefined);
const list = (value: unknown): Obj[] => (Array.isArray(value) ? value.map((v) => obj(v) ?? {}) : []);
const str = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '');
const quote = (value: string): string => JSON.stringify(value);
const joinQuoted = (values: readonly string[]): string => values.map(quote).join(', ');

/** Capabilities a container may add at baseline: the container runtime's default set. */
const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT',
]); // prettier-ignore
/** Namespaced sysctls allowed at baseline (Kubernetes' safe set). */
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes',
]); // prettier-ignore
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
/** Volume types allowed at restricted. */
const RESTRICTED_VOLUMES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

interface NamedContainer {
  name: string;
  securityContext: Obj;
  spec: Obj;
}

function containersOf(spec: Obj): NamedContainer[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((key) =>
    list(spec[key]).map((c) => ({ name: str(c.name), securityContext: obj(c.securityContext) ?? {}, spec: c })),
  );
}

/** Names as the standard's messages list them: `container "a"`, `containers "a", "b"`. */
function containerNames(names: readonly string[]): string {
  return `${names.length === 1 ? 'container' : 'containers'} ${joinQuoted(names)}`;
}

/** The baseline checks of the Pod Security Standards: what a pod spec and its metadata violate. */
function baselineViolations(spec: Obj, annotations: Obj): string[] {
  const out: string[] = [];
  const containers = containersOf(spec);
  const podContext = obj(spec.securityContext) ?? {};
  const hostNamespaces = ['hostNetwork', 'hostPID', 'hostIPC'].filter((key) => spec[key] === true);
  if (hostNamespaces.length > 0) out.push(`host namespaces (${hostNamespaces.map((key) => `${key}=true`).join(', ')})`);
  const privileged = containers.filter((c) => c.securityContext.privileged === true).map((c) => c.name);
  if (privileged.length > 0) out.push(`privileged (${containerNames(privileged)} must not set securityContext.privileged=true)`);
  const added = containers.flatMap((c) => {
    const extra = (Array.isArray(obj(c.securityContext.capabilities)?.add) ? (obj(c.securityContext.capabilities)!.add as unknown[]) : [])
      .map(String)
      .filter((cap) => !BASELINE_CAPABILITIES.has(cap));
    return extra.length > 0 ? [`container ${quote(c.name)} must not include ${joinQuoted(extra)} in securityContext.capabilities.add`] : [];
  });
  if (added.length > 0) out.push(`non-default capabilities (${added.join('; ')})`);
  const hostPaths = list(spec.volumes)
    .filter((v) => v.hostPath !== undefined)
    .map((v) => str(v.name));
  if (hostPaths.length > 0) out.push(`hostPath volumes (${hostPaths.length === 1 ? 'volume' : 'volumes'} ${joinQuoted(hostPaths)})`);
  const hostPorts = containers.flatMap((c) => {
    const ports = list(c.spec.ports)
      .map((p) => p.hostPort)
      .filter((p) => typeof p === 'number' && p !== 0);
    return ports.length > 0 ? [`${containerNames([c.name])} uses ${ports.length === 1 ? 'hostPort' : 'hostPorts'} ${ports.join(', ')}`] : [];
  });
  if (hostPorts.length > 0) out.push(`hostPort (${hostPorts.join('; ')})`);
  const appArmor = [
    ...Object.entries(annotations)
      .filter(
        ([key, value]) =>
          key.startsWith('container.apparmor.security.beta.kubernetes.io/') && value !== 'runtime/default' && !String(value).startsWith('localhost/'),
      )
      .map(([key, value]) => `${key}=${quote(String(value))}`),
    ...[podContext, ...containers.map((c) => c.securityContext)]
      .filter((context) => obj(context.appArmorProfile)?.type === 'Unconfined')
      .map(() => 'securityContext.appArmorProfile.type="Unconfined"'),
  ];
  if (appArmor.length > 0) out.push(`forbidden AppArmor profile (${appArmor.join(', ')})`);
  const seLinux = [podContext, ...containers.map((c) => c.securityContext)].some((context) => {
    const options = obj(context.seLinuxOptions);
    return options !== undefined && (!SELINUX_TYPES.has(str(options.type)) || (options.user ?? '') !== '' || (options.role ?? '') !== '');
  });
  if (seLinux) out.push('seLinuxOptions (the type must be one of container_t, container_init_t, container_kvm_t, and user and role must not be set)');
  const procMount = containers.filter((c) => c.securityContext.procMount !== undefined && c.securityContext.procMount !== 'Default').map((c) => c.name);
  if (procMount.length > 0) out.push(`procMount (${containerNames(procMount)} must not set securityContext.procMount to "Unmasked")`);
  const unconfined = [
    ...(obj(podContext.seccompProfile)?.type === 'Unconfined' ? ['pod'] : []),
    ...containers.filter((c) => obj(c.securityContext.seccompProfile)?.type === 'Unconfined').map((c) => `container ${quote(c.name)}`),
  ];
  if (unconfined.length > 0) out.push(`seccompProfile (${unconfined.join(', ')} must not set securityContext.seccompProfile.type to "Unconfined")`);
  const sysctls = list(podContext.sysctls)
    .map((s) => str(s.name))
    .filter((name) => !SAFE_SYSCTLS.has(name));
  if (sysctls.length > 0) out.push(`forbidden sysctls (${sysctls.join(', ')})`);
  return out;
}

/** The restricted checks, beyond baseline's. */
function restrictedViolations(spec: Obj): string[] {
  const out: string[] = [];
  const containers = containersOf(spec);
  const podContext = obj(spec.securityContext) ?? {};
  const volumes = list(spec.volumes).flatMap((v) => {
    const type = Object.keys(v).find((key) => key !== 'name');
    return type !== undefined && !RESTRICTED_VOLUMES.has(type) ? [`volume ${quote(str(v.name))} uses restricted volume type ${quote(type)}`] : [];
  });
  if (volumes.length > 0) out.push(`restricted volume types (${volumes.join('; ')})`);
  const escalation = containers.filter((c) => c.securityContext.allowPrivilegeEscalation !== false).map((c) => c.name);
  if (escalation.length > 0)
    out.push(`allowPrivilegeEscalation != false (${containerNames(escalation)} must set securityContext.allowPrivilegeEscalation=false)`);
  const podNonRoot = podContext.runAsNonRoot === true;
  const nonRoot = containers
    .filter((c) => c.securityContext.runAsNonRoot === false || (!podNonRoot && c.securityContext.runAsNonRoot !== true))
    .map((c) => c.name);
  if (podContext.runAsNonRoot === false || nonRoot.length > 0) {
    out.push(
      `runAsNonRoot != true (pod or ${containerNames(nonRoot.length > 0 ? nonRoot : containers.map((c) => c.name))} must set securityContext.runAsNonRoot=true)`,
    );
  }
  const root = [
    ...(podContext.runAsUser === 0 ? ['pod'] : []),
    ...containers.filter((c) => c.securityContext.runAsUser === 0).map((c) => `container ${quote(c.name)}`),
  ];
  if (root.length > 0) out.push(`runAsUser=0 (${root.join(', ')} must not set runAsUser=0)`);
  const confined = (context: Obj) => ['RuntimeDefault', 'Localhost'].includes(str(obj(context.seccompProfile)?.type));
  const podConfined = confined(podContext);
  const unconfined = containers
    .filter((c) => (obj(c.securityContext.seccompProfile)?.type === undefined ? !podConfined : !confined(c.securityContext)))
    .map((c) => c.name);
  if (unconfined.length > 0) {
    out.push(`seccompProfile (pod or ${containerNames(unconfined)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`);
  }
  const capabilities = containers.flatMap((c) => {
    const caps = obj(c.securityContext.capabilities) ?? {};
    const drop = Array.isArray(caps.drop) ? caps.drop.map(String) : [];
    const add = (Array.isArray(caps.add) ? caps.add.map(String) : []).filter((cap) => cap !== 'NET_BIND_SERVICE');
    return [
      ...(drop.includes('ALL') ? [] : [`container ${quote(c.name)} must set securityContext.capabilities.drop=["ALL"]`]),
      ...(add.length > 0 ? [`container ${quote(c.name)} must not include ${joinQuoted(add)} in securityContext.capabilities.add`] : []),
    ];
  });
  if (capabilities.length > 0) out.push(`unrestricted capabilities (${capabilities.join('; ')})`);
  return out;
}

/** What a pod spec violates at `level` (nothing at privileged). */
export function podSecurityViolations(level: PodSecurityLevel, spec: Obj, annotations: Obj = {}): string[] {
  if (level === 'privileged') return [];
  const baseline = baselineViolations(spec, annotations);
  return level === 'baseline' ? baseline : [...baseline, ...restrictedViolations(spec)];
}

type LevelVersion = { level: PodSecurityLevel; version: string };

/**
 * A namespace's level for `mode` (`enforce`, `warn`, `audit`), with the version it names; privileged when
 * unset, and restricted:latest when the label is not a level, as Kubernetes evaluates a bad policy.
 */
function levelOf(labels: Obj, mode: 'enforce' | 'warn' | 'audit'): LevelVersion {
  const value = labels[`${LABEL}${mode}`];
  const version = typeof labels[`${LABEL}${mode}-version`] === 'string' ? String(labels[`${LABEL}${mode}-version`]) : 'latest';
  if (value === undefined) return { level: 'privileged', version };
  return LEVELS.includes(value as PodSecurityLevel) ? { level: value as PodSecurityLevel, version } : { level: 'restricted', version: 'latest' };
}

const VERSION = /^(latest|v1\.(0|[1-9][0-9]*))$/;

/** The pod-security labels of a namespace that are not valid, as field errors. */
function namespaceLabelErrors(labels: Obj): FieldError[] {
  const errors: FieldError[] = [];
  for (const mode of ['enforce', 'warn', 'audit']) {
    const level = labels[`${LABEL}${mode}`];
    if (level !== undefined && !LEVELS.includes(level as PodSecurityLevel)) {
      errors.push(fieldNotSupported(`metadata.labels[${LABEL}${mode}]`, level, LEVELS));
    }
    const version = labels[`${LABEL}${mode}-version`];
    if (version !== undefined && !VERSION.test(str(version))) {
      errors.push(fieldInvalid(`metadata.labels[${LABEL}${mode}-version]`, version, 'must be "latest" or "v1.x"'));
    }
  }
  return errors;
}

/** A namespace's pods, at most `limit` of them in name order, and how many it holds in all. */
export type NamespacePods = (namespace: string, limit: number) => Promise<{ pods: Obj[]; total: number }>;

export interface PodSecurityDependencies {
  namespaces: NamespaceLookup;
  /** Without it, a namespace given a stricter enforce level gets no warnings about its pods. */
  namespacePods?: NamespacePods;
}

/** Pods checked against a namespace's new enforce level, as Kubernetes checks at most. */
const MAX_PODS_CHECKED = 3000;

/**
 * Whether a namespace's pods are checked against its new enforce level: when the level is not
 * privileged and is stricter than before, or names another version.
 */
function isStricter(next: LevelVersion, previous: LevelVersion): boolean {
  if (next.level === 'privileged' || (next.level === previous.level && next.version === previous.version)) return false;
  return next.version !== previous.version || LEVELS.indexOf(next.level) > LEVELS.indexOf(previous.level);
}

/**
 * Kubernetes' warnings when a namespace's enforce level changes: which existing pods it would refuse,
 * pods with the same violations together under the first name (`web-1 (and 2 other pods): hostPath
 * volumes`), in sorted order, after a line saying the namespace has such pods.
 */
function existingPodWarnings(namespace: string, enforce: LevelVersion, found: { pods: Obj[]; total: number }): string[] {
  const groups = new Map<string, { first: string; count: number }>();
  for (const pod of found.pods) {
    const violations = podSecurityViolations(enforce.level, obj(pod.spec) ?? {}, obj(obj(pod.metadata)?.annotations) ?? {});
    if (violations.length === 0) continue;
    // Pods are grouped by what they violate, without the details (container names differ from pod to pod).
    const reasons = violations.map((v) => (v.includes(' (') ? v.slice(0, v.indexOf(' (')) : v)).join(', ');
    const name = str(obj(pod.metadata)?.name);
    const group = groups.get(reasons);
    if (group === undefined) groups.set(reasons, { first: name, count: 1 });
    else {
      group.count++;
      if (name < group.first) group.first = name;
    }
  }
  const warnings: string[] = [];
  if (found.pods.length < found.total) {
    warnings.push(`new PodSecurity enforce level only checked against the first ${found.pods.length} of ${found.total} existing pods`);
  }
  if (groups.size === 0) return warnings;
  warnings.push(`existing pods in namespace ${quote(namespace)} violate the new PodSecurity enforce level ${quote(`${enforce.level}:${enforce.version}`)}`);
  const others = (count: number): string => (count === 1 ? '' : count === 2 ? ' (and 1 other pod)' : ` (and ${count - 1} other pods)`);
  const podWarnings = [...groups].map(([reasons, { first, count }]) => `${first}${others(count)}: ${reasons}`);
  return [...warnings, ...podWarnings.sort()];
}

/**
 * Kubernetes' PodSecurity admission plugin (on by default) with its default configuration (every
 * mode privileged unless a namespace label says otherwise, no exemptions): a pod created, or updated
 * in its spec, in a namespace labelled `pod-security.kubernetes.io/enforce: baseline|restricted` is
 * refused when it violates that level; `.../warn` adds a Warning for pods and for the pod templates
 * of workloads (kinds whose strategy names a template; templates are never refused); `.../audit` adds
 * the `pod-security.kubernetes.io/audit-violations` annotation to the request's audit events, beside
 * `pod-security.kubernetes.io/enforce-policy` (the level a pod was held to). Every version label is
 * evaluated as `latest`'s checks. A namespace given a stricter enforce level is not refused, but the
 * answer warns which of its pods that level would refuse (what `kubectl label --dry-run=server`
 * shows before a level is set).
 */
export function podSecurityAdmission(deps: PodSecurityDependencies): AdmissionPlugin {
  const { namespaces } = deps;
  return {
    name: 'PodSecurity',
    async validate(a: AdmissionAttributes): Promise<void> {
      if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
      if (a.definition.resource === 'namespaces' && sameGroup(a.definition.group, '') && a.subresource === '') {
        const labels = obj(a.object?.metadata?.labels) ?? {};
        const errors = namespaceLabelErrors(labels);
        if (errors.length > 0) throw newInvalid({ group: '', kind: 'Namespace' }, a.name, errors);
        if (a.operation === 'UPDATE' && deps.namespacePods !== undefined) {
          const enforce = levelOf(labels, 'enforce');
          if (isStricter(enforce, levelOf(obj(a.oldObject?.metadata?.labels) ?? {}, 'enforce'))) {
            a.warnings?.push(...existingPodWarnings(a.name, enforce, await deps.namespacePods(a.name, MAX_PODS_CHECKED)));
          }
        }
        return;
      }
      if (a.namespace === '' || (a.subresource !== '' && a.subresource !== 'ephemeralcontainers')) return;
      const held = heldPodSpec(a.definition, a.object);
      if (held === undefined) return;
      // An update that leaves the spec as it was (labels, annotations, status) is not evaluated again.
      if (a.operation === 'UPDATE' && JSON.stringify(heldPodSpec(a.definition, a.oldObject)?.spec) === JSON.stringify(held.spec)) return;
      const labels = obj((await namespaces(a.namespace))?.metadata?.labels) ?? {};
      const { spec, annotations, template } = held;
      const enforce = levelOf(labels, 'enforce');
      const audit = levelOf(labels, 'audit');
      if (a.auditAnnotations !== undefined) {
        if (!template) a.auditAnnotations[`${LABEL}enforce-policy`] = `${enforce.level}:${enforce.version}`;
        const violations = podSecurityViolations(audit.level, spec, annotations);
        if (violations.length > 0) {
          a.auditAnnotations[`${LABEL}audit-violations`] = `would violate PodSecurity "${audit.level}:${audit.version}": ${violations.join(', ')}`;
        }
      }
      if (!template) {
        const violations = podSecurityViolations(enforce.level, spec, annotations);
        if (violations.length > 0) {
          throw newForbidden(
            { group: a.definition.group, resource: a.definition.resource },
            a.name || a.object?.metadata?.generateName || '',
            `violates PodSecurity "${enforce.level}:${enforce.version}": ${violations.join(', ')}`,
          );
        }
      }
      // A workload's template is checked against the enforce level too, as a warning: its pods would be refused.
      const warnings = template ? [enforce, levelOf(labels, 'warn')] : [levelOf(labels, 'warn')];
      const seen = new Set<string>();
      for (const { level, version } of warnings) {
        const violations = podSecurityViolations(level, spec, annotations);
        const warning = `would violate PodSecurity "${level}:${version}": ${violations.join(', ')}`;
        if (violations.length > 0 && !seen.has(warning)) a.warnings?.push(warning);
        seen.add(warning);
      }
    },
  };
}
