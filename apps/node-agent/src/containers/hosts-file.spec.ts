import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod, PodSpec } from '@svc/api';
import { hostsFileContent } from './hosts-file';

const HEADER = [
  '# Kubernetes-managed hosts file.',
  '127.0.0.1\tlocalhost',
  '::1\tlocalhost ip6-localhost ip6-loopback',
  'fe00::0\tip6-localnet',
  'fe00::0\tip6-mcastprefix',
  'fe00::1\tip6-allnodes',
  'fe00::2\tip6-allrouters',
];

describe("the pod's /etc/hosts", () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'hosts-file-spec-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const pod = (spec: Partial<PodSpec> = {}, name = 'web-0'): Pod => ({ metadata: { name, namespace: 'shop', uid: 'u-1' }, spec: { containers: [], ...spec } });

  it('names each pod address by the hostname, its pod name by default', async () => {
    expect(await hostsFileContent(pod(), ['10.1.0.5'], 'cluster.local')).toBe([...HEADER, '10.1.0.5\tweb-0', ''].join('\n'));
    expect(await hostsFileContent(pod({ hostname: 'front' }), ['10.1.0.5', 'fd01::5'], 'cluster.local')).toBe(
      [...HEADER, '10.1.0.5\tfront', 'fd01::5\tfront', ''].join('\n'),
    );
  });

  it('puts the FQDN <hostname>.<subdomain>.<namespace>.svc.<zone> first for a pod with a subdomain', async () => {
    const lines = (await hostsFileContent(pod({ hostname: 'db-0', subdomain: 'db' }), ['10.1.0.5'], 'cluster.local')).trimEnd().split('\n');
    expect(lines.slice(HEADER.length)).toEqual(['10.1.0.5\tdb-0.db.shop.svc.cluster.local\tdb-0']);
    // Without a cluster domain there is no FQDN to give.
    expect(await hostsFileContent(pod({ hostname: 'db-0', subdomain: 'db' }), ['10.1.0.5'], '')).toContain('10.1.0.5\tdb-0\n');
  });

  it('adds the hostAliases under their own heading, one line per address', async () => {
    const aliases = pod({
      hostAliases: [
        { ip: '10.9.9.9', hostnames: ['db', 'db.local'] },
        { ip: 'fd00::9', hostnames: ['v6'] },
      ],
    });
    expect(await hostsFileContent(aliases, ['10.1.0.5'], 'cluster.local')).toBe(
      [...HEADER, '10.1.0.5\tweb-0', '', '# Entries added by HostAliases.', '10.9.9.9\tdb\tdb.local', 'fd00::9\tv6', ''].join('\n'),
    );
  });

  it("gives a host-network pod the node's hosts file and its hostAliases", async () => {
    const nodeHosts = join(dir, 'hosts');
    writeFileSync(nodeHosts, '127.0.0.1\tlocalhost\n192.168.1.7\tnode-a\n');
    const hostNet = pod({ hostNetwork: true, hostAliases: [{ ip: '10.9.9.9', hostnames: ['db'] }] });
    expect(await hostsFileContent(hostNet, ['192.168.1.7'], 'cluster.local', nodeHosts)).toBe(
      '# Kubernetes-managed hosts file (host network).\n127.0.0.1\tlocalhost\n192.168.1.7\tnode-a\n\n# Entries added by HostAliases.\n10.9.9.9\tdb\n',
    );
    await expect(hostsFileContent(hostNet, [], 'cluster.local', join(dir, 'missing'))).rejects.toThrow(/ENOENT/);
  });
});
