import type { Answer, Question } from 'dns-packet';
import type { EndpointSlice, Service } from '@svc/api';
import { StaticClusterView } from './cluster-view';
import { addressFromReverse, ClusterRecords, DNS_SCHEMA_VERSION } from './cluster-records';

const svc = (name: string, spec: Service['spec'], namespace = 'default'): Service => ({ metadata: { name, namespace }, spec });
const slice = (
  service: string,
  endpoints: EndpointSlice['endpoints'],
  ports: EndpointSlice['ports'] = [],
  addressType: EndpointSlice['addressType'] = 'IPv4',
): EndpointSlice => ({
  metadata: { name: `${service}-${addressType}`, namespace: 'default', labels: { 'kubernetes.io/service-name': service } },
  addressType,
  endpoints,
  ports,
});

const services = [
  svc('web', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00::10'], ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { port: 8080 }] }),
  svc('db', { clusterIP: 'None', ports: [{ name: 'pg', port: 5432 }] }),
  svc('empty', { clusterIP: 'None' }),
  svc('notready', { clusterIP: 'None', publishNotReadyAddresses: true }),
  svc('ext', { type: 'ExternalName', externalName: 'example.org' }),
];
const slices = [
  slice(
    'db',
    [
      { addresses: ['10.1.0.5'], hostname: 'db-0', conditions: { ready: true } },
      { addresses: ['10.1.0.6'], conditions: {} },
      { addresses: ['10.1.0.7'], hostname: 'db-2', conditions: { ready: false } },
    ],
    [{ name: 'pg', port: 5433, protocol: 'TCP' }],
  ),
  slice('empty', [{ addresses: ['10.1.0.9'], conditions: { ready: false } }]),
  slice('notready', [{ addresses: ['10.1.0.8'], conditions: { ready: false } }]),
];

/** An answer's data (OPT records have none). */
const dataOf = (a: Answer) => ('data' in a ? a.data : undefined);

const records = new ClusterRecords(new StaticClusterView(services, slices), { zone: 'cluster.local', ttl: 5 });
const ask = (name: string, type: Question['type']) => records.answer({ name, type, class: 'IN' });
const data = (name: string, type: Question['type']) => ask(name, type)?.answers.map(dataOf);

describe('ClusterRecords (Kubernetes DNS specification 1.1.0)', () => {
  it('serves the schema version as TXT at dns-version.<zone>', () => {
    expect(data('dns-version.cluster.local', 'TXT')).toEqual([DNS_SCHEMA_VERSION]);
  });

  it('answers A and AAAA of a ClusterIP Service with its cluster IPs, NODATA for a family it lacks', () => {
    expect(data('web.default.svc.cluster.local', 'A')).toEqual(['10.96.0.10']);
    expect(data('WEB.default.svc.cluster.local.', 'AAAA')).toEqual(['fd00::10']);
    const v4only = new ClusterRecords(new StaticClusterView([svc('v4', { clusterIP: '10.96.0.11', ports: [] })], []), { zone: 'cluster.local', ttl: 5 });
    const nodata = v4only.answer({ name: 'v4.default.svc.cluster.local', type: 'AAAA' });
    expect(nodata).toMatchObject({ rcode: 'NOERROR', answers: [] });
    expect(nodata?.authorities[0]).toMatchObject({ type: 'SOA' });
  });

  it('answers SRV of a ClusterIP Service named port with the Service name, and only for named ports', () => {
    const srv = ask('_http._tcp.web.default.svc.cluster.local', 'SRV');
    expect(srv?.answers.map(dataOf)).toEqual([{ priority: 0, weight: 100, port: 80, target: 'web.default.svc.cluster.local' }]);
    expect(srv?.additionals.map(dataOf)).toEqual(['10.96.0.10', 'fd00::10']);
    expect(ask('_http._udp.web.default.svc.cluster.local', 'SRV')?.rcode).toBe('NXDOMAIN');
    expect(ask('_nope._tcp.web.default.svc.cluster.local', 'SRV')?.rcode).toBe('NXDOMAIN');
  });

  it("answers a headless Service with its ready endpoints' addresses, per-endpoint names, and SRV per endpoint hostname", () => {
    expect(data('db.default.svc.cluster.local', 'A')?.sort()).toEqual(['10.1.0.5', '10.1.0.6']);
    expect(data('db-0.db.default.svc.cluster.local', 'A')).toEqual(['10.1.0.5']);
    expect(data('10-1-0-6.db.default.svc.cluster.local', 'A')).toEqual(['10.1.0.6']);
    expect(ask('db-2.db.default.svc.cluster.local', 'A')?.rcode).toBe('NXDOMAIN'); // not ready
    const srv = ask('_pg._tcp.db.default.svc.cluster.local', 'SRV');
    expect(srv?.answers.map(dataOf)).toEqual([
      { priority: 0, weight: 50, port: 5433, target: 'db-0.db.default.svc.cluster.local' },
      { priority: 0, weight: 50, port: 5433, target: '10-1-0-6.db.default.svc.cluster.local' },
    ]);
    expect(srv?.additionals.map((a) => [a.name, dataOf(a)])).toEqual([
      ['db-0.db.default.svc.cluster.local', '10.1.0.5'],
      ['10-1-0-6.db.default.svc.cluster.local', '10.1.0.6'],
    ]);
  });

  it('answers NXDOMAIN for a headless Service without a ready endpoint, unless it publishes unready ones', () => {
    expect(ask('empty.default.svc.cluster.local', 'A')?.rcode).toBe('NXDOMAIN');
    expect(data('notready.default.svc.cluster.local', 'A')).toEqual(['10.1.0.8']);
  });

  it('answers an ExternalName Service with a CNAME whatever the type asked', () => {
    for (const type of ['A', 'AAAA', 'CNAME'] as const)
      expect(ask('ext.default.svc.cluster.local', type)?.answers).toEqual([
        { name: 'ext.default.svc.cluster.local', type: 'CNAME', ttl: 5, class: 'IN', data: 'example.org' },
      ]);
  });

  it('answers PTR for cluster IPs and headless endpoints, and leaves other addresses to the upstream', () => {
    expect(data('10.0.96.10.in-addr.arpa', 'PTR')).toEqual(['web.default.svc.cluster.local']);
    expect(data('5.0.1.10.in-addr.arpa', 'PTR')).toEqual(['db-0.db.default.svc.cluster.local']);
    const v6 = '0.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa';
    expect(addressFromReverse(v6)).toBe('fd00::10');
    expect(data(v6, 'PTR')).toEqual(['web.default.svc.cluster.local']);
    expect(ask('1.1.1.1.in-addr.arpa', 'PTR')).toBeUndefined();
  });

  it('answers a-b-c-d.<ns>.pod.<zone> with the address it spells', () => {
    expect(data('10-1-0-42.default.pod.cluster.local', 'A')).toEqual(['10.1.0.42']);
    expect(data('fd00--42.default.pod.cluster.local', 'AAAA')).toEqual(['fd00::42']);
    expect(ask('10-1-0-42.default.pod.cluster.local', 'AAAA')).toMatchObject({ rcode: 'NOERROR', answers: [] });
    expect(ask('10-1-0-999.default.pod.cluster.local', 'A')?.rcode).toBe('NXDOMAIN');
  });

  it('answers NXDOMAIN for unknown names in the zone, NODATA for namespaces that have Services, and nothing outside it', () => {
    expect(ask('nope.default.svc.cluster.local', 'A')?.rcode).toBe('NXDOMAIN');
    expect(ask('web.other.svc.cluster.local', 'A')?.rcode).toBe('NXDOMAIN');
    expect(ask('default.svc.cluster.local', 'A')).toMatchObject({ rcode: 'NOERROR', answers: [] });
    expect(ask('a.b.c.cluster.local', 'A')?.rcode).toBe('NXDOMAIN');
    expect(ask('cluster.local', 'SOA')?.answers[0]).toMatchObject({ type: 'SOA' });
    expect(ask('example.org', 'A')).toBeUndefined();
    expect(ask('notcluster.local', 'A')).toBeUndefined();
  });

  it('follows changes of the view in the reverse index', () => {
    const view = new StaticClusterView([svc('a', { clusterIP: '10.96.1.1' })], []);
    const r = new ClusterRecords(view, { zone: 'cluster.local', ttl: 5 });
    expect(r.answer({ name: '1.1.96.10.in-addr.arpa', type: 'PTR' })?.answers).toHaveLength(1);
    view.set([svc('b', { clusterIP: '10.96.1.2' })], []);
    expect(r.answer({ name: '1.1.96.10.in-addr.arpa', type: 'PTR' })).toBeUndefined();
    expect(r.answer({ name: '2.1.96.10.in-addr.arpa', type: 'PTR' })?.answers.map(dataOf)[0]).toBe('b.default.svc.cluster.local');
  });
});
