import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod, PodSpec } from '@svc/api';
import { parseResolvConf, podDns, readResolvConf, resolvConfProblem, type PodDnsSettings } from './pod-dns';

const HOST_RESOLVER = [
  '# the host resolver',
  'nameserver 192.168.1.1',
  'search old.example',
  'options rotate',
  '; a comment of the C library',
  'nameserver 192.168.1.2',
  'search lan. example.org svc.cluster.local',
  'options edns0 timeout:2',
].join('\n');

describe("the pod's resolver (the kubelet's GetPodDNS)", () => {
  let dir: string;
  let settings: PodDnsSettings;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pod-dns-spec-'));
    const resolvConf = join(dir, 'resolv.conf');
    writeFileSync(resolvConf, HOST_RESOLVER);
    settings = { clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', resolvConf, nodeIPs: ['192.168.1.7'] };
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const pod = (spec: Partial<PodSpec> = {}): Pod => ({ metadata: { name: 'web', namespace: 'shop', uid: 'u-1' }, spec: { containers: [], ...spec } });

  it('reads a resolver file as the kubelet does: nameservers add up, the last search and options lines win, trailing dots go', () => {
    expect(parseResolvConf(HOST_RESOLVER)).toEqual({
      nameservers: ['192.168.1.1', '192.168.1.2'],
      searches: ['lan', 'example.org', 'svc.cluster.local'],
      options: ['edns0', 'timeout:2'],
    });
    expect(readResolvConf(settings.resolvConf).nameservers).toEqual(['192.168.1.1', '192.168.1.2']);
    const huge = join(dir, 'huge.conf');
    writeFileSync(huge, '');
    truncateSync(huge, 10 * 1024 * 1024 + 1);
    expect(() => readResolvConf(huge)).toThrow(/larger than 10485760 bytes/);
  });

  it("gives ClusterFirst pods the cluster DNS alone, the cluster's search domains before the host's (once each), and ndots:5", () => {
    expect(podDns(pod(), settings)).toEqual({
      config: {
        servers: ['10.96.0.10'],
        searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'lan', 'example.org'],
        options: ['ndots:5'],
      },
      notices: [],
    });
    expect(podDns(pod({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }), settings).config.servers).toEqual(['10.96.0.10']);
    // Without a cluster domain, the host's search list alone.
    expect(podDns(pod(), { ...settings, clusterDomain: '' }).config.searches).toEqual(['lan', 'example.org', 'svc.cluster.local']);
  });

  it("gives Default pods and host-network ClusterFirst pods the node's resolver file", () => {
    const host = { servers: ['192.168.1.1', '192.168.1.2'], searches: ['lan', 'example.org', 'svc.cluster.local'], options: ['edns0', 'timeout:2'] };
    expect(podDns(pod({ dnsPolicy: 'Default' }), settings)).toEqual({ config: host, notices: [] });
    expect(podDns(pod({ hostNetwork: true }), settings)).toEqual({ config: host, notices: [] });
  });

  it('falls back to Default when ClusterFirst has no cluster DNS, with a MissingClusterDNS warning on the node and the pod', () => {
    const { config, notices } = podDns(pod(), { ...settings, clusterDNS: [] });
    expect(config.servers).toEqual(['192.168.1.1', '192.168.1.2']);
    const message = 'kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.';
    expect(notices).toEqual([
      { on: 'node', reason: 'MissingClusterDNS', message },
      { on: 'pod', reason: 'MissingClusterDNS', message: `pod: "web_shop(u-1)". ${message}` },
    ]);
  });

  it("asks the node's loopback, per address family, with the search list '.', when the node has no resolver file", () => {
    const none = { ...settings, resolvConf: '' };
    expect(podDns(pod({ dnsPolicy: 'Default' }), none).config).toEqual({ servers: ['127.0.0.1'], searches: ['.'], options: [] });
    expect(podDns(pod({ dnsPolicy: 'Default' }), { ...none, nodeIPs: ['192.168.1.7', 'fd00::7'] }).config.servers).toEqual(['127.0.0.1', '::1']);
    expect(podDns(pod({ dnsPolicy: 'Default' }), { ...none, nodeIPs: [] }).config.servers).toEqual(['127.0.0.1']);
    expect(podDns(pod(), none).config).toEqual({
      servers: ['10.96.0.10'],
      searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      options: ['ndots:5'],
    });
  });

  it('adds dnsConfig to any policy: nameservers and searches once each, options replaced by name, a valueless option by its name alone', () => {
    const clusterFirst = pod({
      dnsConfig: {
        nameservers: ['10.96.0.10', '1.1.1.1'],
        searches: ['cluster.local', 'extra.example'],
        options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }, { name: 'attempts', value: '' }],
      },
    });
    expect(podDns(clusterFirst, settings).config).toEqual({
      servers: ['10.96.0.10', '1.1.1.1'],
      searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'lan', 'example.org', 'extra.example'],
      options: ['ndots:2', 'edns0', 'attempts'],
    });
    const none = pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], searches: ['a.example'], options: [{ name: 'ndots', value: '1' }] } });
    expect(podDns(none, settings)).toEqual({ config: { servers: ['1.1.1.1'], searches: ['a.example'], options: ['ndots:1'] }, notices: [] });
    expect(podDns(pod({ dnsPolicy: 'None' }), settings).config).toEqual({ servers: [], searches: [], options: [] });
  });

  it('keeps at most 3 nameservers, with a DNSConfigForming warning', () => {
    const { config, notices } = podDns(pod({ dnsConfig: { nameservers: ['1.1.1.1', '8.8.8.8', '9.9.9.9'] } }), settings);
    expect(config.servers).toEqual(['10.96.0.10', '1.1.1.1', '8.8.8.8']);
    expect(notices).toEqual([
      {
        on: 'pod',
        reason: 'DNSConfigForming',
        message: 'Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 10.96.0.10 1.1.1.1 8.8.8.8',
      },
    ]);
  });

  it('keeps at most 32 search domains, none over 253 characters, and a search line of at most 2048, cutting from the end', () => {
    const many = Array.from({ length: 40 }, (_, i) => `d${i}.example`);
    const tooMany = podDns(pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], searches: many } }), settings);
    expect(tooMany.config.searches).toEqual(many.slice(0, 32));
    expect(tooMany.notices).toEqual([
      {
        on: 'pod',
        reason: 'DNSConfigForming',
        message: `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${many.slice(0, 32).join(' ')}`,
      },
    ]);

    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}`; // 255 characters
    expect(podDns(pod({ dnsPolicy: 'None', dnsConfig: { searches: ['ok.example', long] } }), settings).config.searches).toEqual(['ok.example']);

    // 2048 characters: nine domains of 227 and the spaces between them make 2051, so the last one goes.
    const wide = Array.from({ length: 9 }, (_, i) => `${String(i).padStart(3, '0')}${'x'.repeat(60)}.${'y'.repeat(63)}.${'z'.repeat(63)}.${'w'.repeat(35)}`);
    expect(wide.join(' ').length).toBe(2051);
    const cut = podDns(pod({ dnsPolicy: 'None', dnsConfig: { searches: wide } }), settings);
    expect(cut.config.searches).toEqual(wide.slice(0, 8));
    expect(cut.notices.map((n) => n.reason)).toEqual(['DNSConfigForming']);
  });

  it("throws when the node's resolver file cannot be read (the sandbox is not made)", () => {
    expect(() => podDns(pod(), { ...settings, resolvConf: join(dir, 'missing.conf') })).toThrow(/ENOENT/);
  });

  it("warns of a node resolver file whose search line leaves the cluster's domains no room", () => {
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const domains = (n: number) => Array.from({ length: n }, (_, i) => `d${i}.example`).join(' ');
    expect(resolvConfProblem({ ...settings, resolvConf: file('ok.conf', `search ${domains(29)}\n`) })).toBeUndefined();
    expect(resolvConfProblem({ ...settings, resolvConf: file('many.conf', `search ${domains(30)}\n`) })).toBe(
      `Resolv.conf file '${join(dir, 'many.conf')}' contains search line consisting of more than 29 domains!`,
    );
    expect(resolvConfProblem({ resolvConf: join(dir, 'many.conf'), clusterDomain: '' })).toBeUndefined();
    expect(resolvConfProblem({ ...settings, resolvConf: file('long.conf', `search ${'a'.repeat(254)}\n`) })).toMatch(/more than allowed 253 chars!$/);
    expect(resolvConfProblem({ ...settings, resolvConf: file('wide.conf', `search ${Array(12).fill('w'.repeat(200)).join(' ')}\n`) })).toMatch(
      /search line which length is more than allowed 2048 chars!$/,
    );
    expect(resolvConfProblem({ ...settings, resolvConf: join(dir, 'missing.conf') })).toMatch(/ENOENT/);
    expect(resolvConfProblem({ ...settings, resolvConf: '' })).toBeUndefined();
  });
});
