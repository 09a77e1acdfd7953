import { closeSync, openSync, readSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import type { Pod } from '@svc/api';
import type { DNSConfig } from '@svc/cri';

/** Kubernetes' limits on a pod's resolver (1.32, where ExpandedDNSConfig is the rule). */
export const MAX_DNS_NAMESERVERS = 3;
export const MAX_DNS_SEARCH_PATHS = 32;
export const MAX_DNS_SEARCH_LIST_CHARS = 2048;
/** Longer search domains make some C libraries abort (glibc 2.28), so they are left out. */
const MAX_SEARCH_DOMAIN_CHARS = 253;
/** The most of a resolver file read: a larger one is an error, as the kubelet reads it. */
const MAX_RESOLV_CONF_BYTES = 10 * 1024 * 1024;
const DEFAULT_OPTIONS = ['ndots:5'];
/** `resolvConf` when the configuration does not name one. */
export const DEFAULT_RESOLV_CONF = '/etc/resolv.conf';

/** What a resolver file says: nameservers accumulate; the last `search` and the last `options` line win. */
export interface ResolverFile {
  nameservers: string[];
  searches: string[];
  options: string[];
}

export function parseResolvConf(text: string): ResolverFile {
  const parsed: ResolverFile = { nameservers: [], searches: [], options: [] };
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    const [keyword, ...values] = trimmed.split(/\s+/);
    if (keyword === 'nameserver' && values[0]) parsed.nameservers.push(values[0]);
    // The same domain with and without its trailing dot counts once against the limits.
    else if (keyword === 'search') parsed.searches = values.map((s) => s.replace(/\.$/, ''));
    else if (keyword === 'options') parsed.options = values;
  }
  return parsed;
}

/** Reads and parses a resolver file; throws when it cannot be read or is larger than 10 MiB. */
export function readResolvConf(path: string): ResolverFile {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(MAX_RESOLV_CONF_BYTES + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > MAX_RESOLV_CONF_BYTES) throw new Error(`${path} is larger than ${MAX_RESOLV_CONF_BYTES} bytes`);
    return parseResolvConf(buffer.subarray(0, length).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

export interface PodDnsSettings {
  /** `clusterDNS`: the cluster DNS servers' addresses. */
  clusterDNS: readonly string[];
  /** `clusterDomain`: the zone of the cluster's names; empty for none. */
  clusterDomain: string;
  /** `resolvConf`: the node's resolver file, the base of every policy but None; empty for none. */
  resolvConf: string;
  /** The node's addresses: with no resolver file, Default pods ask the node's loopback of each family. */
  nodeIPs: readonly string[];
}

/** A warning event the pod's resolver gives rise to, on the pod or on the node (as the kubelet reports them). */
export interface DnsNotice {
  on: 'pod' | 'node';
  reason: 'DNSConfigForming' | 'MissingClusterDNS' | 'CheckLimitsForResolvConf';
  message: string;
}

export interface PodDns {
  config: DNSConfig;
  notices: DnsNotice[];
}

type ResolverReader = (path: string) => ResolverFile;

function omitDuplicates(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** The policy the pod's resolver is built by: a host-network pod's ClusterFirst is the node's (Default). */
function dnsType(pod: Pod): 'cluster' | 'host' | 'none' {
  const policy = pod.spec?.dnsPolicy ?? 'ClusterFirst';
  if (policy === 'None') return 'none';
  if (policy === 'ClusterFirstWithHostNet') return 'cluster';
  if (policy === 'ClusterFirst' && !pod.spec?.hostNetwork) return 'cluster';
  return 'host';
}

/** Options by name, the pod's replacing the base's; a value given empty leaves the name alone. */
function mergeOptions(base: readonly string[], extra: ReadonlyArray<{ name?: string; value?: string }>): string[] {
  const options = new Map<string, string>();
  for (const option of base) {
    const colon = option.indexOf(':');
    options.set(colon === -1 ? option : option.slice(0, colon), colon === -1 ? '' : option.slice(colon + 1));
  }
  for (const option of extra) options.set(option.name ?? '', option.value ?? '');
  return [...options].map(([name, value]) => (value === '' ? name : `${name}:${value}`));
}

function fitSearches(searches: readonly string[], notices: DnsNotice[]): string[] {
  let exceeded = searches.length > MAX_DNS_SEARCH_PATHS;
  let kept = searches.slice(0, MAX_DNS_SEARCH_PATHS);
  const short = kept.filter((s) => s.length <= MAX_SEARCH_DOMAIN_CHARS);
  exceeded ||= short.length !== kept.length;
  kept = short;
  let line = kept.join(' ').length;
  if (line > MAX_DNS_SEARCH_LIST_CHARS) {
    exceeded = true;
    // Whole domains go from the end until the line fits.
    while (kept.length > 0 && line > MAX_DNS_SEARCH_LIST_CHARS) line -= kept.pop()!.length + 1;
  }
  if (exceeded) {
    const message = `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${kept.join(' ')}`;
    notices.push({ on: 'pod', reason: 'DNSConfigForming', message });
  }
  return kept;
}

function fitNameservers(servers: readonly string[], notices: DnsNotice[]): string[] {
  if (servers.length <= MAX_DNS_NAMESERVERS) return [...servers];
  const kept = servers.slice(0, MAX_DNS_NAMESERVERS);
  const message = `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${kept.join(' ')}`;
  notices.push({ on: 'pod', reason: 'DNSConfigForming', message });
  return kept;
}

/**
 * The pod's resolver as the kubelet builds it (`GetPodDNS`): the node's resolver file as the base;
 * ClusterFirst (and ClusterFirstWithHostNet) puts the cluster DNS alone as nameservers, the cluster's
 * search domains before the node's, and `ndots:5`; ClusterFirst without clusterDNS falls back to
 * Default, with a MissingClusterDNS warning; Default without a resolver file asks the node's
 * loopback with the search list `.`; None starts empty. `dnsConfig` is then added (nameservers and
 * searches without duplicates, options replaced by name) and the result cut to Kubernetes' limits,
 * each cut a DNSConfigForming warning. Throws when the resolver file cannot be read.
 */
export function podDns(pod: Pod, settings: PodDnsSettings, read: ResolverReader = readResolvConf): PodDns {
  const notices: DnsNotice[] = [];
  const host = settings.resolvConf === '' ? { nameservers: [], searches: [], options: [] } : read(settings.resolvConf);
  let config: Required<DNSConfig> = { servers: host.nameservers, searches: host.searches, options: host.options };
  let type = dnsType(pod);
  if (type === 'none') config = { servers: [], searches: [], options: [] };
  if (type === 'cluster' && settings.clusterDNS.length > 0) {
    const domain = settings.clusterDomain;
    const namespace = pod.metadata?.namespace ?? 'default';
    const searches = domain === '' ? host.searches : omitDuplicates([`${namespace}.svc.${domain}`, `svc.${domain}`, domain, ...host.searches]);
    config = { servers: [...settings.clusterDNS], searches, options: [...DEFAULT_OPTIONS] };
  } else if (type === 'cluster') {
    const message = 'kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.';
    const meta = pod.metadata ?? {};
    notices.push({ on: 'node', reason: 'MissingClusterDNS', message });
    notices.push({ on: 'pod', reason: 'MissingClusterDNS', message: `pod: "${meta.name}_${meta.namespace}(${meta.uid})". ${message}` });
    type = 'host';
  }
  if (type === 'host' && settings.resolvConf === '') {
    // No resolver file: the C library's own default, the local machine, in each of the node's families.
    const loopbacks = settings.nodeIPs.map((ip) => (isIPv6(ip) ? '::1' : '127.0.0.1'));
    config = { servers: loopbacks.length > 0 ? loopbacks : ['127.0.0.1'], searches: ['.'], options: [] };
  }
  const extra = pod.spec?.dnsConfig;
  if (extra) {
    config = {
      servers: omitDuplicates([...config.servers, ...(extra.nameservers ?? [])]),
      searches: omitDuplicates([...config.searches, ...(extra.searches ?? [])]),
      options: mergeOptions(config.options, extra.options ?? []),
    };
  }
  return {
    config: { servers: fitNameservers(config.servers, notices), searches: fitSearches(config.searches, notices), options: config.options },
    notices,
  };
}

/**
 * What is wrong with the node's resolver file for pods (the kubelet's CheckLimitsForResolvConf, a
 * warning on the node at start): unreadable, or a search line that leaves no room for the cluster's
 * three domains, holds a domain too long, or is too long as a whole.
 */
export function resolvConfProblem(settings: Pick<PodDnsSettings, 'resolvConf' | 'clusterDomain'>, read: ResolverReader = readResolvConf): string | undefined {
  if (settings.resolvConf === '') return undefined;
  let searches: string[];
  try {
    searches = read(settings.resolvConf).searches;
  } catch (error) {
    return (error as Error).message;
  }
  const path = settings.resolvConf;
  const limit = MAX_DNS_SEARCH_PATHS - (settings.clusterDomain === '' ? 0 : 3);
  if (searches.length > limit) return `Resolv.conf file '${path}' contains search line consisting of more than ${limit} domains!`;
  if (searches.some((s) => s.length > MAX_SEARCH_DOMAIN_CHARS))
    return `Resolv.conf file "${path}" contains a search path which length is more than allowed ${MAX_SEARCH_DOMAIN_CHARS} chars!`;
  if (searches.join(' ').length > MAX_DNS_SEARCH_LIST_CHARS)
    return `Resolv.conf file '${path}' contains search line which length is more than allowed ${MAX_DNS_SEARCH_LIST_CHARS} chars!`;
  return undefined;
}
