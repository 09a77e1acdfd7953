import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod, PodSpec } from '@svc/api';
import { podDnsConfig, podHostname, sandboxConfig, type SandboxSettings } from './sandbox-config';

describe('the pod sandbox', () => {
  let dir: string;
  let settings: SandboxSettings;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-spec-'));
    const resolvConf = join(dir, 'resolv.conf');
    writeFileSync(resolvConf, '# host resolver\nnameserver 192.168.1.1\nnameserver 192.168.1.2 ; backup\nsearch lan example.org\noptions edns0\n');
    settings = { podLogRoot: '/var/log/pods', clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', resolvConf, cgroupRoot: '', cgroupsPerQOS: true };
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function pod(spec: Partial<PodSpec> = {}, name = 'web'): Pod {
    return { metadata: { name, namespace: 'shop', uid: 'u-1', annotations: { a: 'b' } }, spec: { containers: [{ name: 'app', image: 'i' }], ...spec } };
  }

  it('gives ClusterFirst pods the cluster DNS, its search path before the host one, and ndots:5', () => {
    expect(podDnsConfig(pod(), settings)).toEqual({
      servers: ['10.96.0.10'],
      searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'lan', 'example.org'],
      options: ['ndots:5'],
    });
  });

  it("gives Default pods and host-network ClusterFirst pods the host's resolver", () => {
    const host = { servers: ['192.168.1.1', '192.168.1.2'], searches: ['lan', 'example.org'], options: ['edns0'] };
    expect(podDnsConfig(pod({ dnsPolicy: 'Default' }), settings)).toEqual(host);
    expect(podDnsConfig(pod({ hostNetwork: true }), settings)).toEqual(host);
    expect(podDnsConfig(pod({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }), settings).servers).toEqual(['10.96.0.10']);
    expect(podDnsConfig(pod(), { ...settings, clusterDNS: [] })).toEqual(host);
  });

  it('adds dnsConfig, a later option replacing an earlier one of the same name, and keeps within the limits', () => {
    const extra = pod({
      dnsPolicy: 'None',
      dnsConfig: {
        nameservers: ['1.1.1.1', '8.8.8.8', '9.9.9.9', '1.0.0.1'],
        searches: ['a', 'a', 'b'],
        options: [{ name: 'ndots', value: '2' }, { name: 'rotate' }, { name: 'ndots', value: '3' }],
      },
    });
    expect(podDnsConfig(extra, settings)).toEqual({ servers: ['1.1.1.1', '8.8.8.8', '9.9.9.9'], searches: ['a', 'b'], options: ['ndots:3', 'rotate'] });
  });

  it('names the host after the pod, its hostname field first, cut to a DNS label', () => {
    expect(podHostname(pod())).toBe('web');
    expect(podHostname(pod({ hostname: 'front' }))).toBe('front');
    expect(podHostname(pod({}, `${'a'.repeat(62)}-b`))).toBe('a'.repeat(62));
  });

  it('builds the CRI sandbox: identity, log directory, host ports, namespaces, cgroup parent and groups', () => {
    const config = sandboxConfig(
      pod({
        hostPID: true,
        securityContext: { runAsUser: 1000, fsGroup: 2000, supplementalGroups: [3000] },
        containers: [{ name: 'app', image: 'i', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 81 }] }],
      }),
      2,
      settings,
    );
    expect(config).toMatchObject({
      metadata: { name: 'web', uid: 'u-1', namespace: 'shop', attempt: 2 },
      hostname: 'web',
      logDirectory: '/var/log/pods/shop_web_u-1',
      portMappings: [{ protocol: 'TCP', containerPort: 80, hostPort: 8080, hostIp: '' }],
      annotations: { a: 'b' },
      linux: {
        cgroupParent: '/kubepods/besteffort/podu-1',
        securityContext: { namespaceOptions: { network: 'POD', pid: 'NODE', ipc: 'POD' }, runAsUser: { value: 1000 }, supplementalGroups: [3000, 2000] },
      },
    });
    expect(sandboxConfig(pod({ hostNetwork: true }), 0, settings)).toMatchObject({
      hostname: undefined,
      linux: { securityContext: { namespaceOptions: { network: 'NODE' } } },
    });
  });
});
