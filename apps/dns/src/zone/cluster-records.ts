import { isIPv4, isIPv6 } from 'node:net';
import type { Answer, Question } from 'dns-packet';
import type { EndpointSlice, Service } from '@svc/api';
import type { ClusterView } from './cluster-view';

/** The version of Kubernetes' DNS specification these records follow, served as `dns-version.<zone>` TXT. */
export const DNS_SCHEMA_VERSION = '1.1.0';

export type Rcode = 'NOERROR' | 'NXDOMAIN';

/** The records of one answer; `undefined` from `answer` means the name is not the cluster's (forward it). */
export interface ClusterAnswer {
  rcode: Rcode;
  answers: Answer[];
  authorities: Answer[];
  additionals: Answer[];
}

interface ReadyEndpoint {
  address: string;
  /** The endpoint's hostname, else its address with dashes (as CoreDNS names endpoints without one). */
  hostname: string;
}

const dashed = (ip: string) => ip.replace(/[.:]/g, '-');

/** `a-b-c-d` (or an IPv6 address with `-` for `:`) as the address it names, if it is one. */
export function addressFromDashed(label: string): string | undefined {
  if (isIPv4(label.replace(/-/g, '.')) && label.split('-').length === 4) return label.replace(/-/g, '.');
  const v6 = label.replace(/-/g, ':');
  return isIPv6(v6) ? v6 : undefined;
}

/** The address a reverse name (`d.c.b.a.in-addr.arpa`, nibbles under `ip6.arpa`) stands for. */
export function addressFromReverse(name: string): string | undefined {
  const labels = name.split('.');
  if (name.endsWith('.in-addr.arpa') && labels.length === 6) {
    const ip = labels.slice(0, 4).reverse().join('.');
    return isIPv4(ip) && labels.slice(0, 4).every((l) => /^\d{1,3}$/.test(l)) ? ip : undefined;
  }
  if (name.endsWith('.ip6.arpa') && labels.length === 34 && labels.slice(0, 32).every((l) => /^[0-9a-f]$/.test(l))) {
    const nibbles = labels.slice(0, 32).reverse().join('');
    return canonicalIp((nibbles.match(/.{4}/g) ?? []).join(':'));
  }
  return undefined;
}

/** One spelling per address, so index keys and questions meet (`2001:db8::1` however written). */
export function canonicalIp(ip: string): string | undefined {
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return undefined;
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

const familyOf = (type: string): 4 | 6 | undefined => (type === 'A' ? 4 : type === 'AAAA' ? 6 : undefined);
const ipFamily = (ip: string): 4 | 6 => (isIPv4(ip) ? 4 : 6);

export interface ClusterRecordsOptions {
  zone: string;
  ttl: number;
}

/**
 * The records of Kubernetes' DNS specification, computed per question from the cluster view: the
 * schema version, Services (ClusterIP, headless and ExternalName), their named ports as SRV, their
 * endpoints, pods by address, and reverse lookups of cluster IPs and headless endpoints.
 */
export class ClusterRecords {
  private readonly zone: string;
  private reverseIndex = new Map<string, string[]>();
  private reverseVersion = -1;

  constructor(
    private readonly view: ClusterView,
    private readonly options: ClusterRecordsOptions,
  ) {
    this.zone = options.zone.toLowerCase().replace(/\.$/, '');
  }

  /** Whether the name is one this server answers (the zone and the reverse zones it knows). */
  answer(question: Question): ClusterAnswer | undefined {
    const asked = question.name.replace(/\.$/, '');
    const name = asked.toLowerCase();
    if (question.class !== undefined && question.class !== 'IN' && question.class !== 'ANY') return undefined;
    if (name.endsWith('.in-addr.arpa') || name.endsWith('.ip6.arpa')) return this.reverse(asked, name, question.type);
    if (name !== this.zone && !name.endsWith(`.${this.zone}`)) return undefined;
    const labels = name === this.zone ? [] : name.slice(0, -this.zone.length - 1).split('.');
    return this.inZone(asked, labels, question.type) ?? this.nxdomain();
  }

  private get ttl(): number {
    return this.options.ttl;
  }

  private inZone(asked: string, labels: string[], type: string): ClusterAnswer | undefined {
    const n = labels.length;
    if (n === 0) {
      if (type === 'SOA') return this.ok([this.soa()]);
      if (type === 'NS') return this.ok([{ name: this.zone, type: 'NS', ttl: this.ttl, class: 'IN', data: `ns.dns.${this.zone}` }]);
      return this.nodata();
    }
    if (n === 1 && labels[0] === 'dns-version') {
      return type === 'TXT' || type === 'ANY' ? this.ok([{ name: asked, type: 'TXT', ttl: this.ttl, class: 'IN', data: DNS_SCHEMA_VERSION }]) : this.nodata();
    }
    const kind = labels[n - 1];
    if (kind === 'svc') return this.service(asked, labels.slice(0, -1), type);
    if (kind === 'pod') return this.pod(asked, labels.slice(0, -1), type);
    return undefined;
  }

  /** `[<endpoint>.]<svc>.<ns>` and `_<port>._<proto>.<svc>.<ns>`, under `svc.<zone>`. */
  private service(asked: string, labels: string[], type: string): ClusterAnswer | undefined {
    const n = labels.length;
    if (n === 0) return this.nodata();
    const namespace = labels[n - 1];
    if (n === 1) return this.view.hasNamespace(namespace) ? this.nodata() : undefined;
    const service = this.view.service(namespace, labels[n - 2]);
    if (!service) return undefined;
    const serviceName = `${labels[n - 2]}.${namespace}.svc.${this.zone}`;
    if (n === 2) return this.serviceName(asked, serviceName, service, type);
    if (n === 4 && labels[0].startsWith('_') && labels[1].startsWith('_')) {
      return this.srv(asked, serviceName, service, labels[0].slice(1), labels[1].slice(1), type);
    }
    if (n === 3 && isHeadless(service)) {
      const matches = this.ready(service).filter((e) => e.hostname === labels[0]);
      if (matches.length === 0) return undefined;
      const family = familyOf(type);
      const answers = matches
        .filter((e) => family === undefined || ipFamily(e.address) === family)
        .filter(() => family !== undefined || type === 'ANY')
        .map((e) => this.address(asked, e.address));
      return answers.length ? this.ok(answers) : this.nodata();
    }
    return undefined;
  }

  private serviceName(asked: string, serviceName: string, service: Service, type: string): ClusterAnswer | undefined {
    const spec = service.spec ?? {};
    if (spec.type === 'ExternalName') {
      if (!spec.externalName) return undefined;
      return this.ok([{ name: asked, type: 'CNAME', ttl: this.ttl, class: 'IN', data: spec.externalName.replace(/\.$/, '') }]);
    }
    const family = familyOf(type);
    if (isHeadless(service)) {
      const ready = this.ready(service);
      // A headless Service without a ready endpoint has no name (the specification's NXDOMAIN).
      if (ready.length === 0) return this.nxdomain();
      if (type === 'SRV') return this.srvAll(asked, serviceName, service, ready);
      const addresses = [...new Set(ready.map((e) => e.address))].filter((a) => (family === undefined ? type === 'ANY' : ipFamily(a) === family));
      return addresses.length ? this.ok(addresses.map((a) => this.address(asked, a))) : this.nodata();
    }
    if (type === 'SRV') return this.srvAll(asked, serviceName, service, []);
    const ips = clusterIPs(service).filter((a) => (family === undefined ? type === 'ANY' : ipFamily(a) === family));
    return ips.length ? this.ok(ips.map((a) => this.address(asked, a))) : this.nodata();
  }

  /** `_<port>._<proto>.<svc>.<ns>.svc.<zone>` SRV: the Service's port (ClusterIP), or each ready endpoint (headless). */
  private srv(asked: string, serviceName: string, service: Service, port: string, protocol: string, type: string): ClusterAnswer | undefined {
    if (service.spec?.type === 'ExternalName') return undefined;
    const proto = protocol.toUpperCase();
    if (isHeadless(service)) {
      const ready = this.ready(service, port, proto);
      if (ready.length === 0) return undefined;
      if (type !== 'SRV' && type !== 'ANY') return this.nodata();
      const answers: Answer[] = [];
      const additionals: Answer[] = [];
      for (const { endpoint, port: number } of ready) {
        const target = `${endpoint.hostname}.${serviceName}`;
        answers.push(this.srvRecord(asked, number, target, ready.length));
        additionals.push(this.address(target, endpoint.address));
      }
      return { rcode: 'NOERROR', answers, authorities: [], additionals };
    }
    const match = (service.spec?.ports ?? []).find((p) => p.name === port && (p.protocol ?? 'TCP') === proto);
    if (!match) return undefined;
    if (type !== 'SRV' && type !== 'ANY') return this.nodata();
    return {
      rcode: 'NOERROR',
      answers: [this.srvRecord(asked, match.port, serviceName, 1)],
      authorities: [],
      additionals: clusterIPs(service).map((ip) => this.address(serviceName, ip)),
    };
  }

  /** SRV on the Service's own name: every named port, as CoreDNS answers it. */
  private srvAll(asked: string, serviceName: string, service: Service, ready: ReadyEndpoint[]): ClusterAnswer {
    const answers: Answer[] = [];
    const additionals: Answer[] = [];
    if (isHeadless(service)) {
      const ports = new Map<number, true>();
      for (const slice of this.view.slices(service.metadata?.namespace ?? '', service.metadata?.name ?? ''))
        for (const p of slice.ports ?? []) if (p.port) ports.set(p.port, true);
      for (const e of ready) {
        const target = `${e.hostname}.${serviceName}`;
        for (const port of ports.keys()) answers.push(this.srvRecord(asked, port, target, ready.length * ports.size));
        additionals.push(this.address(target, e.address));
      }
    } else {
      const ports = service.spec?.ports ?? [];
      for (const p of ports) answers.push(this.srvRecord(asked, p.port, serviceName, ports.length));
      additionals.push(...clusterIPs(service).map((ip) => this.address(serviceName, ip)));
    }
    return answers.length ? { rcode: 'NOERROR', answers, authorities: [], additionals } : this.nodata();
  }

  /** `a-b-c-d.<ns>.pod.<zone>`: the address the name spells (CoreDNS's "pods insecure"). */
  private pod(asked: string, labels: string[], type: string): ClusterAnswer | undefined {
    if (labels.length === 1) return this.nodata();
    if (labels.length !== 2) return undefined;
    const ip = addressFromDashed(labels[0]);
    if (!ip) return undefined;
    const family = familyOf(type);
    return (family === undefined && type === 'ANY') || family === ipFamily(ip) ? this.ok([this.address(asked, ip)]) : this.nodata();
  }

  /** PTR of cluster IPs and headless endpoints; other addresses are not the cluster's (forwarded). */
  private reverse(asked: string, name: string, type: string): ClusterAnswer | undefined {
    const ip = addressFromReverse(name);
    if (!ip) return undefined;
    const names = this.reverseNames().get(ip);
    if (!names?.length) return undefined;
    if (type !== 'PTR' && type !== 'ANY') return this.nodata();
    return this.ok(names.map((data) => ({ name: asked, type: 'PTR', ttl: this.ttl, class: 'IN', data })));
  }

  private reverseNames(): Map<string, string[]> {
    if (this.reverseVersion === this.view.version) return this.reverseIndex;
    const index = new Map<string, string[]>();
    const add = (ip: string, name: string) => {
      const key = canonicalIp(ip);
      if (key) index.set(key, [...(index.get(key) ?? []), name]);
    };
    for (const service of this.view.allServices()) {
      const serviceName = `${service.metadata?.name}.${service.metadata?.namespace}.svc.${this.zone}`;
      if (service.spec?.type === 'ExternalName') continue;
      if (isHeadless(service)) for (const e of this.ready(service)) add(e.address, `${e.hostname}.${serviceName}`);
      else for (const ip of clusterIPs(service)) add(ip, serviceName);
    }
    this.reverseIndex = index;
    this.reverseVersion = this.view.version;
    return index;
  }

  /** Ready endpoints of a Service (all, with publishNotReadyAddresses); with a port, those serving it. */
  private ready(service: Service): ReadyEndpoint[];
  private ready(service: Service, port: string, protocol: string): Array<{ endpoint: ReadyEndpoint; port: number }>;
  private ready(service: Service, port?: string, protocol?: string): ReadyEndpoint[] | Array<{ endpoint: ReadyEndpoint; port: number }> {
    const publishAll = service.spec?.publishNotReadyAddresses === true;
    const out: Array<{ endpoint: ReadyEndpoint; port: number }> = [];
    const seen = new Set<string>();
    for (const slice of this.view.slices(service.metadata?.namespace ?? '', service.metadata?.name ?? '')) {
      if (slice.addressType === 'FQDN') continue;
      const slicePort = port === undefined ? undefined : sliceNamedPort(slice, port, protocol ?? 'TCP');
      if (port !== undefined && slicePort === undefined) continue;
      for (const endpoint of slice.endpoints ?? []) {
        // A missing ready condition means ready (EndpointSlice's documented meaning of nil).
        if (!publishAll && endpoint.conditions?.ready === false) continue;
        for (const address of endpoint.addresses ?? []) {
          const ip = canonicalIp(address);
          if (!ip) continue;
          const hostname = endpoint.hostname || dashed(ip);
          const key = `${hostname}/${ip}/${slicePort ?? ''}`;
          if (seen.has(key)) continue;
          seen.add(key);
          out.push({ endpoint: { address: ip, hostname }, port: slicePort ?? 0 });
        }
      }
    }
    return port === undefined ? out.map((o) => o.endpoint) : out;
  }

  private address(name: string, ip: string): Answer {
    return { name, type: ipFamily(ip) === 4 ? 'A' : 'AAAA', ttl: this.ttl, class: 'IN', data: ip };
  }

  private srvRecord(name: string, port: number, target: string, count: number): Answer {
    // Equal shares of 100, as CoreDNS weighs the targets of one name.
    return { name, type: 'SRV', ttl: this.ttl, class: 'IN', data: { priority: 0, weight: Math.max(1, Math.floor(100 / count)), port, target } };
  }

  private soa(): Answer {
    return {
      name: this.zone,
      type: 'SOA',
      ttl: this.ttl,
      class: 'IN',
      data: {
        mname: `ns.dns.${this.zone}`,
        rname: `hostmaster.${this.zone}`,
        serial: Math.floor(Date.now() / 1000) >>> 0,
        refresh: 7200,
        retry: 1800,
        expire: 86400,
        minimum: this.ttl,
      },
    };
  }

  private ok(answers: Answer[]): ClusterAnswer {
    return { rcode: 'NOERROR', answers, authorities: [], additionals: [] };
  }

  private nodata(): ClusterAnswer {
    return { rcode: 'NOERROR', answers: [], authorities: [this.soa()], additionals: [] };
  }

  private nxdomain(): ClusterAnswer {
    return { rcode: 'NXDOMAIN', answers: [], authorities: [this.soa()], additionals: [] };
  }
}

function isHeadless(service: Service): boolean {
  return service.spec?.clusterIP === 'None';
}

function clusterIPs(service: Service): string[] {
  const ips = service.spec?.clusterIPs?.length ? service.spec.clusterIPs : service.spec?.clusterIP ? [service.spec.clusterIP] : [];
  return ips.map((ip) => canonicalIp(ip)).filter((ip): ip is string => ip !== undefined);
}

function sliceNamedPort(slice: EndpointSlice, name: string, protocol: string): number | undefined {
  const port = (slice.ports ?? []).find((p) => (p.name ?? '') === name && (p.protocol ?? 'TCP') === protocol);
  return port?.port ?? undefined;
}
