import { BlockList, isIP } from 'node:net';
import {
  isDNS1035Label,
  isDNS1123Subdomain,
  isRecord,
  isValidPathSegmentName,
  isValidPortName,
  isValidPortNum,
  maxLenError,
  regexError,
  RenderedValue,
  validateLabelSelector,
} from '@svc/machinery';
import { IS_DEFAULT_INGRESS_CLASS_ANNOTATION, IngressClassParametersScopes, IngressClassSchema, type IngressClass } from '../../kinds/networking/ingress-class';
import { INGRESS_CLASS_ANNOTATION, IngressSchema, PathTypes, type Ingress, type IngressBackend } from '../../kinds/networking/ingress';
import { NetworkPolicySchema, PolicyTypes, type NetworkPolicy, type NetworkPolicyPeer, type NetworkPolicyPort } from '../../kinds/networking/network-policy';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';
import { selectorCell } from './workload-rules';

/** The group of the networking kinds, served as networking.k8s.io too. */
const GROUP = 'networking.svc.io';

// ---------------------------------------------------------------------------------------------------
// IngressClass

/** Whether a class is a default one (the annotation set to "true"). */
export function isDefaultIngressClass(obj: ApiObject): boolean {
  return obj.metadata?.annotations?.[IS_DEFAULT_INGRESS_CLASS_ANNOTATION] === 'true';
}

/**
 * The default class among `classes`, as Kubernetes' DefaultIngressClass plugin picks it: of several
 * default ones the newest by creation time, then the first by name; undefined when none is a default.
 */
export function defaultIngressClassOf<T extends ApiObject>(classes: readonly T[]): T | undefined {
  const created = (c: ApiObject) => Date.parse(c.metadata?.creationTimestamp ?? '') || 0;
  const name = (c: ApiObject) => c.metadata?.name ?? '';
  return classes.filter(isDefaultIngressClass).sort((a, b) => created(b) - created(a) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0))[0];
}

const MAX_CONTROLLER_LENGTH = 250;
const HTTP_PATH_FORMAT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH = new RegExp(`^${HTTP_PATH_FORMAT}$`);

/** IsDomainPrefixedPath: `acme.io/foo`, a DNS subdomain, a slash, HTTP path characters. */
function domainPrefixedPathErrors(at: string, value: string): FieldError[] {
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const path = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || path === '') return [fieldErrors.invalid(at, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errors = isDNS1123Subdomain(host).map((msg) => fieldErrors.invalid(at, host, msg));
  if (!HTTP_PATH.test(path)) errors.push(fieldErrors.invalid(at, path, regexError('Invalid path', HTTP_PATH_FORMAT)));
  return errors;
}

function pathSegmentErrors(at: string, value: unknown): FieldError[] {
  if (typeof value !== 'string' || value === '') return [fieldErrors.required(at, '')];
  return isValidPathSegmentName(value).map((msg) => fieldErrors.invalid(at, value, msg));
}

/** validateIngressClassSpec. */
function validateIngressClass(obj: ApiObject): FieldError[] {
  const spec = as<IngressClass>(obj).spec ?? {};
  const errors: FieldError[] = [];
  const controller = spec.controller;
  if (typeof controller !== 'string' || controller === '') errors.push(fieldErrors.required('spec.controller', ''));
  else {
    if (controller.length > MAX_CONTROLLER_LENGTH) errors.push(fieldErrors.tooLong('spec.controller', '', MAX_CONTROLLER_LENGTH));
    errors.push(...domainPrefixedPathErrors('spec.controller', controller));
  }
  const params = spec.parameters;
  if (params !== undefined) {
    const at = 'spec.parameters';
    if (params.apiGroup !== undefined)
      errors.push(...isDNS1123Subdomain(params.apiGroup).map((msg) => fieldErrors.invalid(`${at}.apiGroup`, params.apiGroup, msg)));
    errors.push(...pathSegmentErrors(`${at}.kind`, params.kind), ...pathSegmentErrors(`${at}.name`, params.name));
    const scope = params.scope;
    if (scope === undefined) errors.push(fieldErrors.required(`${at}.scope`, ''));
    else if (!(IngressClassParametersScopes as readonly string[]).includes(scope))
      errors.push(fieldErrors.notSupported(`${at}.scope`, scope, IngressClassParametersScopes));
    else if (scope === 'Namespace') {
      if (params.namespace === undefined) errors.push(fieldErrors.required(`${at}.namespace`, "`parameters.scope` is set to 'Namespace'"));
      else errors.push(...isDNS1123Subdomain(params.namespace).map((msg) => fieldErrors.invalid(`${at}.namespace`, params.namespace, msg)));
    } else if (params.namespace !== undefined) errors.push(fieldErrors.forbidden(`${at}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  }
  return errors;
}

function validateIngressClassUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  const next = as<IngressClass>(obj).spec?.controller;
  return next === as<IngressClass>(current).spec?.controller ? [] : [fieldErrors.invalid('spec.controller', next ?? '', 'field is immutable')];
}

/** SetDefaults_IngressClass: parameters are cluster-wide unless said otherwise. */
function defaultIngressClass(obj: ApiObject): void {
  if (!isRecord(obj.spec)) obj.spec = {};
  const params = (obj.spec as Record<string, unknown>).parameters;
  if (isRecord(params) && params.scope === undefined) params.scope = 'Cluster';
}

/** Kubernetes' IngressClass (networking.k8s.io/v1). */
export const ingressClassDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'IngressClass',
  resource: 'ingressclasses',
  namespaced: false,
  schema: IngressClassSchema,
  defaultHooks: [defaultIngressClass],
  strategy: { validateUpdate: validateIngressClassUpdate, tracksGeneration: true },
  columns: [
    nameColumn(),
    column('Controller', 'string', (o) => as<IngressClass>(o).spec?.controller ?? '', {
      description: 'Controller that is responsible for handling this class',
    }),
    column(
      'Parameters',
      'string',
      (o) => {
        const p = as<IngressClass>(o).spec?.parameters;
        if (p === undefined) return '<none>';
        return `${p.kind}.${p.apiGroup ?? ''}/${p.name}`;
      },
      { description: 'A reference to a resource with additional parameters' },
    ),
    ageColumn(),
  ],
  validationRules: [validateIngressClass],
});

// ---------------------------------------------------------------------------------------------------
// Ingress

const WILDCARD_FORMAT = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const WILDCARD = new RegExp(`^${WILDCARD_FORMAT}$`);
const WILDCARD_MESSAGE =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";

/** IsWildcardDNS1123Subdomain. */
function wildcardSubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push(maxLenError(253));
  if (!WILDCARD.test(value)) errors.push(regexError(WILDCARD_MESSAGE, WILDCARD_FORMAT, '*.example.com'));
  return errors;
}

/** A host of a rule or a TLS entry: a DNS subdomain, or a wildcard one. */
function hostErrors(at: string, host: string): FieldError[] {
  const messages = host.includes('*') ? wildcardSubdomainErrors(host) : isDNS1123Subdomain(host);
  return messages.map((msg) => fieldErrors.invalid(at, host, msg));
}

const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];

/** validateIngressBackend. */
function backendErrors(backend: IngressBackend, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const { service, resource } = backend;
  if (resource !== undefined && service !== undefined) return [fieldErrors.invalid(at, '', 'cannot set both resource and service backends')];
  if (resource !== undefined) {
    if (resource.apiGroup !== undefined) {
      errors.push(...isDNS1123Subdomain(resource.apiGroup).map((msg) => fieldErrors.invalid(`${at}.resource.apiGroup`, resource.apiGroup, msg)));
    }
    errors.push(...pathSegmentErrors(`${at}.resource.kind`, resource.kind), ...pathSegmentErrors(`${at}.resource.name`, resource.name));
    return errors;
  }
  if (service === undefined) return [fieldErrors.invalid(at, '', 'resource or service backend is required')];
  if (!service.name) errors.push(fieldErrors.required(`${at}.service.name`, ''));
  else errors.push(...isDNS1035Label(service.name).map((msg) => fieldErrors.invalid(`${at}.service.name`, service.name, msg)));
  const portName = service.port?.name ?? '';
  const portNumber = service.port?.number ?? 0;
  if (portName !== '' && portNumber !== 0) errors.push(fieldErrors.invalid(at, '', 'cannot set both port name & port number'));
  else if (portName !== '') errors.push(...isValidPortName(portName).map((msg) => fieldErrors.invalid(`${at}.service.port.name`, portName, msg)));
  else if (portNumber !== 0) errors.push(...isValidPortNum(portNumber).map((msg) => fieldErrors.invalid(`${at}.service.port.number`, portNumber, msg)));
  else errors.push(fieldErrors.required(at, 'port name or number is required'));
  return errors;
}

/** validateHTTPIngressPath. */
function pathErrors(path: { path?: string; pathType?: string; backend: IngressBackend }, at: string): FieldError[] {
  if (path.pathType === undefined) return [fieldErrors.required(`${at}.pathType`, 'pathType must be specified')];
  const errors: FieldError[] = [];
  const value = path.path ?? '';
  switch (path.pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errors.push(fieldErrors.invalid(`${at}.path`, value, 'must be an absolute path'));
      if (value.length > 0) {
        for (const sequence of INVALID_PATH_SEQUENCES) {
          if (value.includes(sequence)) errors.push(fieldErrors.invalid(`${at}.path`, value, `must not contain '${sequence}'`));
        }
        for (const suffix of INVALID_PATH_SUFFIXES) {
          if (value.endsWith(suffix)) errors.push(fieldErrors.invalid(`${at}.path`, value, `cannot end with '${suffix}'`));
        }
      }
      break;
    case 'ImplementationSpecific':
      if (value.length > 0 && !value.startsWith('/')) errors.push(fieldErrors.invalid(`${at}.path`, value, 'must be an absolute path'));
      break;
    default:
      errors.push(fieldErrors.notSupported(`${at}.pathType`, path.pathType, PathTypes));
  }
  errors.push(...backendErrors(path.backend ?? {}, `${at}.backend`));
  return errors;
}

/** ValidateIngressSpec (and ValidateIngressCreate's class annotation check, which a create adds). */
function ingressSpecErrors(obj: ApiObject): FieldError[] {
  const spec = as<Ingress>(obj).spec ?? {};
  const errors: FieldError[] = [];
  const rules = spec.rules ?? [];
  if (rules.length === 0 && spec.defaultBackend === undefined)
    errors.push(fieldErrors.invalid('spec', goSlice('networking.IngressRule', spec.rules), 'either `defaultBackend` or `rules` must be specified'));
  if (spec.defaultBackend !== undefined) errors.push(...backendErrors(spec.defaultBackend, 'spec.defaultBackend'));
  rules.forEach((rule, i) => {
    const at = `spec.rules[${i}]`;
    const host = rule.host ?? '';
    if (host !== '') {
      if (isIP(host) !== 0) errors.push(fieldErrors.invalid(`${at}.host`, host, 'must be a DNS name, not an IP address'));
      errors.push(...hostErrors(`${at}.host`, host));
    }
    if (rule.http !== undefined) {
      const paths = rule.http.paths ?? [];
      if (paths.length === 0) errors.push(fieldErrors.required(`${at}.http.paths`, ''));
      paths.forEach((path, j) => errors.push(...pathErrors(path, `${at}.http.paths[${j}]`)));
    }
  });
  (spec.tls ?? []).forEach((tls, i) => {
    (tls.hosts ?? []).forEach((host, j) => errors.push(...hostErrors(`spec.tls[${i}].hosts[${j}]`, host)));
    const secret = tls.secretName ?? '';
    if (secret !== '') errors.push(...isDNS1123Subdomain(secret).map((msg) => fieldErrors.invalid(`spec.tls[${i}].secretName`, secret, msg)));
  });
  if (spec.ingressClassName !== undefined) {
    errors.push(...isDNS1123Subdomain(spec.ingressClassName).map((msg) => fieldErrors.invalid('spec.ingressClassName', spec.ingressClassName, msg)));
  }
  return errors;
}

/** ValidateIngressCreate: the old class annotation, when kept beside ingressClassName, names the same class. */
function ingressCreateWarningsAsErrors(obj: ApiObject): FieldError[] {
  const annotation = obj.metadata?.annotations?.[INGRESS_CLASS_ANNOTATION];
  const className = as<Ingress>(obj).spec?.ingressClassName;
  if (annotation === undefined || className === undefined || annotation === className) return [];
  return [fieldErrors.invalid(`annotations.${INGRESS_CLASS_ANNOTATION}`, annotation, 'must match `ingressClassName` when both are specified')];
}

/** ValidateIngressStatusUpdate: the addresses a controller reports. */
function validateIngressStatus(obj: ApiObject, current: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const existing = new Set((as<Ingress>(current).status?.loadBalancer?.ingress ?? []).map((i) => i.ip).filter(Boolean));
  (as<Ingress>(obj).status?.loadBalancer?.ingress ?? []).forEach((entry, i) => {
    const at = `status.loadBalancer.ingress[${i}]`;
    if (entry.ip && !existing.has(entry.ip) && isIP(entry.ip) === 0)
      errors.push(fieldErrors.invalid(`${at}.ip`, entry.ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    if (entry.hostname) {
      errors.push(...isDNS1123Subdomain(entry.hostname).map((msg) => fieldErrors.invalid(`${at}.hostname`, entry.hostname, msg)));
      if (isIP(entry.hostname) !== 0) errors.push(fieldErrors.invalid(`${at}.hostname`, entry.hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errors;
}

/** Always written: a Go struct value (spec, status) has no omitempty that works. */
function defaultIngress(obj: ApiObject): void {
  if (!isRecord(obj.spec)) obj.spec = {};
}

/** A slice as Go's `%#v` prints it in a field error: `[]T(nil)` when absent, else its strings quoted or `{...}`. */
function goSlice(type: string, value: readonly unknown[] | undefined): RenderedValue {
  if (value === undefined) return new RenderedValue(`[]${type}(nil)`);
  const items = value.map((v) => (typeof v === 'string' ? `"${v}"` : '{...}'));
  return new RenderedValue(`[]${type}{${items.join(', ')}}`);
}

const MAX_SHOWN = 3;

/** Kubernetes' formatHosts: up to three hosts, `*` when no rule has one; `+ N more...` counts the rules past three. */
function hostsCell(ingress: Ingress): string {
  const rules = ingress.spec?.rules ?? [];
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === MAX_SHOWN) more = true;
    if (!more && rule.host) hosts.push(rule.host);
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - MAX_SHOWN} more...` : hosts.join(',');
}

/** ingressLoadBalancerStatusStringer as the server prints it (wide): every address. */
function addressCell(ingress: Ingress): string {
  return (ingress.status?.loadBalancer?.ingress ?? [])
    .map((i) => i.ip || i.hostname || '')
    .filter(Boolean)
    .join(',');
}

/** Kubernetes' printIngress: the class named, else `<none>`. */
function classCell(ingress: Ingress): string {
  return ingress.spec?.ingressClassName ?? '<none>';
}

/** Kubernetes' Ingress (networking.k8s.io/v1), whose status its controller writes. */
export const ingressDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'Ingress',
  resource: 'ingresses',
  namespaced: true,
  shortNames: ['ing'],
  subresources: { status: true },
  schema: IngressSchema,
  defaultHooks: [defaultIngress],
  strategy: {
    // ingressStrategy: the create's status is dropped, a change of spec bumps the generation.
    prepareForCreate(ingress) {
      ingress.status = {};
    },
    status: { validateUpdate: validateIngressStatus },
  },
  columns: [
    nameColumn(),
    column('Class', 'string', (o) => classCell(as<Ingress>(o)), { description: 'The name of the IngressClass resource that should be used for ingress' }),
    column('Hosts', 'string', (o) => hostsCell(as<Ingress>(o)), { description: 'Hosts that incoming requests are matched against before the ingress rule' }),
    column('Address', 'string', (o) => addressCell(as<Ingress>(o)), {
      description: 'Address is a list containing ingress points for the load-balancer',
    }),
    column('Ports', 'string', (o) => ((as<Ingress>(o).spec?.tls ?? []).length > 0 ? '80, 443' : '80'), {
      description: 'Ports of TLS configurations that open',
    }),
    ageColumn(),
  ],
  validationRules: [ingressSpecErrors, ingressCreateWarningsAsErrors],
});

// ---------------------------------------------------------------------------------------------------
// NetworkPolicy

const CIDR_MESSAGE = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/** A CIDR as Go's ParseCIDR reads it: an address, a slash, a prefix length of its family; undefined when not one. */
export function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = text.slice(0, slash);
  const bits = text.slice(slash + 1);
  const version = isIP(address);
  if (version === 0 || !/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  if (prefix > (version === 4 ? 32 : 128)) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether `inner` lies strictly within `outer`: its network address inside, its prefix longer. */
function strictSubset(outer: NonNullable<ReturnType<typeof parseCidr>>, inner: NonNullable<ReturnType<typeof parseCidr>>): boolean {
  if (outer.family !== inner.family || inner.prefix <= outer.prefix) return false;
  const list = new BlockList();
  list.addSubnet(outer.address, outer.prefix, outer.family);
  return list.check(inner.address, inner.family);
}

/** ValidateNetworkPolicyPort. */
function policyPortErrors(port: NetworkPolicyPort, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const protocols = ['TCP', 'UDP', 'SCTP'];
  if (port.protocol !== undefined && !protocols.includes(port.protocol)) errors.push(fieldErrors.notSupported(`${at}.protocol`, port.protocol, protocols));
  if (port.port === undefined) {
    if (port.endPort !== undefined) errors.push(fieldErrors.invalid(`${at}.endPort`, port.endPort, 'may not be specified when `port` is not specified'));
  } else if (typeof port.port === 'number') {
    errors.push(...isValidPortNum(port.port).map((msg) => fieldErrors.invalid(`${at}.port`, port.port, msg)));
    if (port.endPort !== undefined) {
      if (port.endPort < port.port) errors.push(fieldErrors.invalid(`${at}.endPort`, port.endPort, 'must be greater than or equal to `port`'));
      errors.push(...isValidPortNum(port.endPort).map((msg) => fieldErrors.invalid(`${at}.endPort`, port.endPort, msg)));
    }
  } else {
    if (port.endPort !== undefined) errors.push(fieldErrors.invalid(`${at}.endPort`, port.endPort, 'may not be specified when `port` is non-numeric'));
    errors.push(...isValidPortName(port.port).map((msg) => fieldErrors.invalid(`${at}.port`, port.port, msg)));
  }
  return errors;
}

/** ValidateNetworkPolicyPeer and ValidateIPBlock. */
function peerErrors(peer: NetworkPolicyPeer, at: string): FieldError[] {
  const errors: FieldError[] = [];
  let count = 0;
  if (peer.podSelector !== undefined) {
    count++;
    errors.push(...validateLabelSelector(peer.podSelector, `${at}.podSelector`));
  }
  if (peer.namespaceSelector !== undefined) {
    count++;
    errors.push(...validateLabelSelector(peer.namespaceSelector, `${at}.namespaceSelector`));
  }
  const block = peer.ipBlock;
  if (block !== undefined) {
    count++;
    if (!block.cidr) errors.push(fieldErrors.required(`${at}.ipBlock.cidr`, ''));
    else {
      const cidr = parseCidr(block.cidr);
      if (cidr === undefined) errors.push(fieldErrors.invalid(`${at}.ipBlock.cidr`, block.cidr, CIDR_MESSAGE));
      else {
        (block.except ?? []).forEach((text, i) => {
          const exceptAt = `${at}.ipBlock.except[${i}]`;
          const except = parseCidr(text);
          if (except === undefined) errors.push(fieldErrors.invalid(exceptAt, text, CIDR_MESSAGE));
          else if (!strictSubset(cidr, except)) errors.push(fieldErrors.invalid(exceptAt, text, 'must be a strict subset of `cidr`'));
        });
      }
    }
  }
  if (count === 0) errors.push(fieldErrors.required(at, 'must specify a peer'));
  else if (count > 1 && block !== undefined) errors.push(fieldErrors.forbidden(at, 'may not specify both ipBlock and another peer'));
  return errors;
}

/** ValidateNetworkPolicySpec. */
function validateNetworkPolicy(obj: ApiObject): FieldError[] {
  const spec = as<NetworkPolicy>(obj).spec ?? {};
  const errors: FieldError[] = [...validateLabelSelector(spec.podSelector, 'spec.podSelector')];
  (spec.ingress ?? []).forEach((rule, i) => {
    (rule.ports ?? []).forEach((port, j) => errors.push(...policyPortErrors(port, `spec.ingress[${i}].ports[${j}]`)));
    (rule.from ?? []).forEach((peer, j) => errors.push(...peerErrors(peer, `spec.ingress[${i}].from[${j}]`)));
  });
  (spec.egress ?? []).forEach((rule, i) => {
    (rule.ports ?? []).forEach((port, j) => errors.push(...policyPortErrors(port, `spec.egress[${i}].ports[${j}]`)));
    (rule.to ?? []).forEach((peer, j) => errors.push(...peerErrors(peer, `spec.egress[${i}].to[${j}]`)));
  });
  const types = spec.policyTypes ?? [];
  if (types.length > PolicyTypes.length)
    return [...errors, fieldErrors.invalid('spec.policyTypes', goSlice('networking.PolicyType', types), 'may not specify more than two policyTypes')];
  types.forEach((type, i) => {
    if (!(PolicyTypes as readonly string[]).includes(type)) errors.push(fieldErrors.notSupported(`spec.policyTypes[${i}]`, type, PolicyTypes));
  });
  return errors;
}

/**
 * SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort: ports are TCP; a policy that names no
 * direction restricts Ingress, and Egress too when it has egress rules. The pod selector is a struct
 * value, always written.
 */
function defaultNetworkPolicy(obj: ApiObject): void {
  if (!isRecord(obj.spec)) obj.spec = {};
  const spec = obj.spec as Record<string, unknown>;
  if (!isRecord(spec.podSelector)) spec.podSelector = {};
  for (const direction of ['ingress', 'egress']) {
    const rules = Array.isArray(spec[direction]) ? (spec[direction] as unknown[]) : [];
    for (const rule of rules) {
      if (!isRecord(rule) || !Array.isArray(rule.ports)) continue;
      for (const port of rule.ports) if (isRecord(port) && port.protocol === undefined) port.protocol = 'TCP';
    }
  }
  const types = spec.policyTypes;
  if (!Array.isArray(types) || types.length === 0) {
    const egress = Array.isArray(spec.egress) && spec.egress.length > 0;
    spec.policyTypes = egress ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

/** Kubernetes' NetworkPolicy (networking.k8s.io/v1). */
export const networkPolicyDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'NetworkPolicy',
  resource: 'networkpolicies',
  namespaced: true,
  shortNames: ['netpol'],
  schema: NetworkPolicySchema,
  defaultHooks: [defaultNetworkPolicy],
  strategy: { tracksGeneration: true },
  columns: [
    nameColumn(),
    column('Pod-Selector', 'string', (o) => selectorCell(as<NetworkPolicy>(o).spec?.podSelector), {
      description: 'Select pods to which the network policy applies',
    }),
    ageColumn(),
  ],
  validationRules: [validateNetworkPolicy],
});
