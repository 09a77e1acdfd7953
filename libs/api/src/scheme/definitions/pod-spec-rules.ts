import type { Container } from '../../kinds/core/container';
import type { PodSpec } from '../../kinds/core/pod-spec';
import { VOLUME_SOURCES } from '../../kinds/core/volume';
import { isIP } from 'node:net';
import { isDNS1123Subdomain, isValidPortNum, isRecord } from '@svc/machinery';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import { canonicalQuantity, quantityNanoValue } from '../../meta/quantity';
import { records } from './define-kind';
import { validateEphemeralContainers } from './pod-ephemeral-containers';
import { backstepErrors, localDescendingPathErrors, persistentVolumeClaimSpecErrors } from './persistent-volume-rules';

/**
 * Pod spec behaviour shared by Pods and the templates of Deployments and ReplicaSets: the
 * defaults and cross-field checks that Kubernetes' Go code applies beyond its schema.
 */

/** `Always` for `:latest` or an untagged reference, `IfNotPresent` for any other tag or a digest. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const [name, digest] = image.split('@', 2);
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  const tag = colon >= 0 ? lastSegment.slice(colon + 1) : digest ? '' : 'latest';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

export function defaultPodSpec(spec: unknown): void {
  if (!isRecord(spec)) return;
  // `serviceAccount` is the old name of `serviceAccountName`: read when the new one is empty, and always
  // written back equal to it, as Kubernetes' v1 conversion does on every write.
  if ((spec.serviceAccountName === undefined || spec.serviceAccountName === '') && typeof spec.serviceAccount === 'string' && spec.serviceAccount !== '') {
    spec.serviceAccountName = spec.serviceAccount;
  }
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '') spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
  for (const list of [spec.containers, spec.initContainers, spec.ephemeralContainers]) {
    for (const c of records(list)) {
      if (c.imagePullPolicy === undefined && typeof c.image === 'string') c.imagePullPolicy = defaultPullPolicy(c.image);
      // ResourceRequirements is a struct value in Go's Container: `resources: {}` when empty.
      c.resources ??= {};
    }
  }
  for (const v of records(spec.volumes)) {
    if (!VOLUME_SOURCES.some((s) => v[s] !== undefined)) v.emptyDir = {};
  }
}

/** Defaults Kubernetes applies to Pods but not to pod templates. */
export function defaultPodOnly(spec: unknown): void {
  if (!isRecord(spec)) return;
  if (spec.enableServiceLinks === undefined) spec.enableServiceLinks = true;
  for (const list of [spec.containers, spec.initContainers]) {
    for (const c of records(list)) {
      // A limit without a request makes the request equal to the limit.
      const resources = c.resources;
      if (!isRecord(resources) || !isRecord(resources.limits)) continue;
      const requests = isRecord(resources.requests) ? resources.requests : {};
      for (const [name, value] of Object.entries(resources.limits)) if (requests[name] === undefined) requests[name] = value;
      resources.requests = requests;
    }
  }
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;

function validateProbe(probe: unknown, path: string, errors: FieldError[]): void {
  if (!isRecord(probe)) return;
  const handlers = PROBE_HANDLERS.filter((h) => probe[h] !== undefined);
  if (handlers.length === 0) errors.push(fieldErrors.required(path, 'must specify a handler type'));
  else if (handlers.length > 1) errors.push(fieldErrors.forbidden(`${path}.${handlers[1]}`, 'may not specify more than 1 handler type'));
}

/** Kubernetes' IsOvercommitAllowed: a native resource (no domain, or a kubernetes.io one) that is not huge pages. */
function overcommitAllowed(name: string): boolean {
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  return native && !name.startsWith('hugepages-');
}

/** ValidateResourceRequirements: no negative amounts, requests within limits (equal to them where no overcommit is allowed). */
function validateResources(resources: unknown, path: string, errors: FieldError[]): void {
  if (!isRecord(resources)) return;
  const limits = isRecord(resources.limits) ? resources.limits : {};
  const requests = isRecord(resources.requests) ? resources.requests : {};
  const shown = (q: unknown) => canonicalQuantity(q) ?? String(q);
  for (const [name, limit] of Object.entries(limits)) {
    if ((quantityNanoValue(limit) ?? 0n) < 0n) errors.push(fieldErrors.invalid(`${path}.limits[${name}]`, shown(limit), 'must be greater than or equal to 0'));
  }
  for (const [name, request] of Object.entries(requests)) {
    const amount = quantityNanoValue(request);
    if (amount === undefined) continue;
    if (amount < 0n) errors.push(fieldErrors.invalid(`${path}.requests[${name}]`, shown(request), 'must be greater than or equal to 0'));
    const limit = limits[name];
    const cap = quantityNanoValue(limit);
    if (cap === undefined) {
      if (limit === undefined && !overcommitAllowed(name))
        errors.push(fieldErrors.required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
    } else if (amount !== cap && !overcommitAllowed(name)) {
      errors.push(fieldErrors.invalid(`${path}.requests`, shown(request), `must be equal to ${name} limit of ${shown(limit)}`));
    } else if (amount > cap) {
      errors.push(fieldErrors.invalid(`${path}.requests`, shown(request), `must be less than or equal to ${name} limit of ${shown(limit)}`));
    }
  }
}

/** Kubernetes' limits on a pod's resolver (1.32). */
const MAX_DNS_NAMESERVERS = 3;
const MAX_DNS_SEARCH_PATHS = 32;
const MAX_DNS_SEARCH_LIST_CHARS = 2048;
const IP_DETAIL = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** validatePodDNSConfig: None needs nameservers; at most 3 of them, IPs; at most 32 searches in 2048 characters, subdomains; named options. */
function validateDnsConfig(p: Record<string, unknown>, path: string, errors: FieldError[]): void {
  const at = `${path}.dnsConfig`;
  const config = isRecord(p.dnsConfig) ? p.dnsConfig : undefined;
  const nameservers = strings(config?.nameservers);
  if (p.dnsPolicy === 'None') {
    if (!config) return void errors.push(fieldErrors.required(at, 'must provide `dnsConfig` when `dnsPolicy` is None'));
    if (nameservers.length === 0)
      return void errors.push(fieldErrors.required(`${at}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None'));
  }
  if (!config) return;
  if (nameservers.length > MAX_DNS_NAMESERVERS)
    errors.push(fieldErrors.invalid(`${at}.nameservers`, nameservers, `must not have more than ${MAX_DNS_NAMESERVERS} nameservers`));
  nameservers.forEach((ns, i) => {
    if (!isIP(ns)) errors.push(fieldErrors.invalid(`${at}.nameservers[${i}]`, ns, IP_DETAIL));
  });
  const searches = strings(config.searches);
  if (searches.length > MAX_DNS_SEARCH_PATHS)
    errors.push(fieldErrors.invalid(`${at}.searches`, searches, `must not have more than ${MAX_DNS_SEARCH_PATHS} search paths`));
  if (searches.join(' ').length > MAX_DNS_SEARCH_LIST_CHARS)
    errors.push(
      fieldErrors.invalid(`${at}.searches`, searches, `must not have more than ${MAX_DNS_SEARCH_LIST_CHARS} characters (including spaces) in the search list`),
    );
  searches.forEach((search, i) => {
    // A trailing dot is fine.
    const name = search.replace(/\.$/, '');
    for (const msg of isDNS1123Subdomain(name)) errors.push(fieldErrors.invalid(`${at}.searches[${i}]`, name, msg));
  });
  records(config.options).forEach((option, i) => {
    if (typeof option.name !== 'string' || option.name === '') errors.push(fieldErrors.required(`${at}.options[${i}]`, 'must not be empty'));
  });
}

/** ValidateHostAliases: each an IP and DNS-1123 subdomains. */
function validateHostAliases(aliases: unknown, path: string, errors: FieldError[]): void {
  records(aliases).forEach((alias, i) => {
    if (typeof alias.ip !== 'string' || !isIP(alias.ip)) errors.push(fieldErrors.invalid(`${path}.hostAliases[${i}].ip`, alias.ip ?? '', IP_DETAIL));
    strings(alias.hostnames).forEach((hostname, j) => {
      for (const msg of isDNS1123Subdomain(hostname)) errors.push(fieldErrors.invalid(`${path}.hostAliases[${i}].hostnames[${j}]`, hostname, msg));
    });
  });
}

export function validatePodSpec(spec: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!isRecord(spec)) return errors;
  const p = spec as PodSpec & Record<string, unknown>;

  const volumeNames = new Set<string>();
  records(p.volumes).forEach((v, i) => {
    const name = v.name;
    if (typeof name === 'string') {
      if (volumeNames.has(name)) errors.push(fieldErrors.duplicate(`${path}.volumes[${i}].name`, name));
      volumeNames.add(name);
    }
    if (isRecord(v.hostPath)) errors.push(...backstepErrors(v.hostPath.path, `${path}.volumes[${i}].hostPath.path`));
    if (isRecord(v.ephemeral)) {
      // ValidatePersistentVolumeClaimTemplate: the claim the pod's ephemeral volume is made of.
      const template = v.ephemeral.volumeClaimTemplate;
      if (!isRecord(template)) errors.push(fieldErrors.required(`${path}.volumes[${i}].ephemeral.volumeClaimTemplate`));
      else if (isRecord(template.spec))
        errors.push(...persistentVolumeClaimSpecErrors(template.spec, `${path}.volumes[${i}].ephemeral.volumeClaimTemplate.spec`));
    }
    const sources = VOLUME_SOURCES.filter((s) => v[s] !== undefined);
    if (sources.length > 1) errors.push(fieldErrors.forbidden(`${path}.volumes[${i}].${sources[1]}`, 'may not specify more than 1 volume type'));
  });

  const containerNames = new Set<string>();
  const checkContainers = (list: unknown, field: string, probes: boolean) => {
    records(list).forEach((c, i) => {
      const container = c as Partial<Container>;
      const at = `${path}.${field}[${i}]`;
      if (typeof container.name === 'string') {
        if (containerNames.has(container.name)) errors.push(fieldErrors.duplicate(`${at}.name`, container.name));
        containerNames.add(container.name);
      }
      records(container.volumeMounts).forEach((m, j) => {
        if (typeof m.name === 'string' && !volumeNames.has(m.name)) errors.push(fieldErrors.notFound(`${at}.volumeMounts[${j}].name`, m.name));
        // ValidateVolumeMounts names these paths without the mount's index, as Kubernetes does.
        if (typeof m.subPath === 'string' && m.subPath !== '') errors.push(...localDescendingPathErrors(m.subPath, `${at}.volumeMounts.subPath`));
        if (typeof m.subPathExpr === 'string' && m.subPathExpr !== '') {
          if (typeof m.subPath === 'string' && m.subPath !== '') {
            errors.push(fieldErrors.invalid(`${at}.volumeMounts[${j}].subPathExpr`, m.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
          }
          errors.push(...localDescendingPathErrors(m.subPathExpr, `${at}.volumeMounts.subPathExpr`));
        }
      });
      const portNames = new Set<string>();
      records(container.ports).forEach((port, j) => {
        // validateContainerPorts: 0 is an unset containerPort (required) and an unset hostPort.
        if (port.containerPort === 0) errors.push(fieldErrors.required(`${at}.ports[${j}].containerPort`));
        else if (typeof port.containerPort === 'number') {
          for (const msg of isValidPortNum(port.containerPort)) errors.push(fieldErrors.invalid(`${at}.ports[${j}].containerPort`, port.containerPort, msg));
        }
        if (typeof port.hostPort === 'number' && port.hostPort !== 0) {
          for (const msg of isValidPortNum(port.hostPort)) errors.push(fieldErrors.invalid(`${at}.ports[${j}].hostPort`, port.hostPort, msg));
        }
        if (typeof port.name !== 'string') return;
        if (portNames.has(port.name)) errors.push(fieldErrors.duplicate(`${at}.ports[${j}].name`, port.name));
        portNames.add(port.name);
      });
      validateResources(container.resources, `${at}.resources`, errors);
      if (probes) {
        validateProbe(container.livenessProbe, `${at}.livenessProbe`, errors);
        validateProbe(container.readinessProbe, `${at}.readinessProbe`, errors);
        validateProbe(container.startupProbe, `${at}.startupProbe`, errors);
      }
    });
  };
  checkContainers(p.initContainers, 'initContainers', false);
  checkContainers(p.containers, 'containers', true);
  errors.push(...validateEphemeralContainers(p, path));
  validateDnsConfig(p, path, errors);
  validateHostAliases(p.hostAliases, path, errors);
  return errors;
}
