import type { Pod, PodSpec } from '@svc/api';
import { HostnameError } from './pod-hostname';
import { sandboxConfig, type SandboxSettings } from './sandbox-config';

describe('the pod sandbox', () => {
  const settings: SandboxSettings = {
    podLogRoot: '/var/log/pods',
    clusterDNS: ['10.96.0.10'],
    clusterDomain: 'cluster.local',
    resolvConf: '',
    nodeIPs: ['192.168.1.7'],
    cgroupRoot: '',
    cgroupsPerQOS: true,
  };
  const dns = { servers: ['10.96.0.10'], searches: ['shop.svc.cluster.local'], options: ['ndots:5'] };

  function pod(spec: Partial<PodSpec> = {}, name = 'web'): Pod {
    return { metadata: { name, namespace: 'shop', uid: 'u-1', annotations: { a: 'b' } }, spec: { containers: [{ name: 'app', image: 'i' }], ...spec } };
  }

  it('builds the CRI sandbox: identity, log directory, host ports, namespaces, cgroup parent and groups', () => {
    const config = sandboxConfig(
      pod({
        hostPID: true,
        securityContext: { runAsUser: 1000, fsGroup: 2000, supplementalGroups: [3000] },
        containers: [{ name: 'app', image: 'i', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 81 }] }],
      }),
      2,
      settings,
      dns,
    );
    expect(config).toMatchObject({
      metadata: { name: 'web', uid: 'u-1', namespace: 'shop', attempt: 2 },
      hostname: 'web',
      dnsConfig: dns,
      logDirectory: '/var/log/pods/shop_web_u-1',
      portMappings: [{ protocol: 'TCP', containerPort: 80, hostPort: 8080, hostIp: '' }],
      annotations: { a: 'b' },
      linux: {
        cgroupParent: '/kubepods/besteffort/podu-1',
        securityContext: { namespaceOptions: { network: 'POD', pid: 'NODE', ipc: 'POD' }, runAsUser: { value: 1000 }, supplementalGroups: [3000, 2000] },
      },
    });
    expect(sandboxConfig(pod({ hostNetwork: true }), 0, settings, dns)).toMatchObject({
      hostname: undefined,
      linux: { securityContext: { namespaceOptions: { network: 'NODE' } } },
    });
  });

  it('names the host by the FQDN with setHostnameAsFQDN and a subdomain, refusing one the kernel cannot hold', () => {
    const fqdn = pod({ hostname: 'web-0', subdomain: 'web', setHostnameAsFQDN: true });
    expect(sandboxConfig(fqdn, 0, settings, dns).hostname).toBe('web-0.web.shop.svc.cluster.local');
    expect(sandboxConfig(pod({ hostname: 'web-0', setHostnameAsFQDN: true }), 0, settings, dns).hostname).toBe('web-0');
    expect(sandboxConfig(pod({ hostname: 'web-0', subdomain: 'web' }), 0, settings, dns).hostname).toBe('web-0');
    const long = pod({ hostname: 'a'.repeat(40), subdomain: 'web', setHostnameAsFQDN: true });
    expect(() => sandboxConfig(long, 0, settings, dns)).toThrow(HostnameError);
    expect(() => sandboxConfig(long, 0, settings, dns)).toThrow(
      `failed to construct FQDN from pod hostname and cluster domain, FQDN ${'a'.repeat(40)}.web.shop.svc.cluster.local is too long (64 characters is the max, 67 characters requested)`,
    );
  });
});
