import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRegistriesConfig, registryAuths, registryHostsToml, RegistriesConfigError, writeRegistryHosts } from './registries-config';

const K3S_STYLE = `
mirrors:
  docker.io:
    endpoint:
      - "http://127.0.0.1:5000"
      - "https://registry-1.docker.io"
  registry.example.com:
    endpoint: ["https://mirror.example.com/v2-prefix"]
configs:
  mirror.example.com:
    auth: { username: robot, password: s3cret }
    tls: { ca_file: /etc/ssl/mirror-ca.pem, insecure_skip_verify: true }
  registry-1.docker.io:
    tls: { ca_file: /etc/ssl/hub-ca.pem }
`;

describe('registries.yaml', () => {
  it('reads mirrors and per-host auth and TLS as k3s writes them', () => {
    const config = parseRegistriesConfig(K3S_STYLE);
    expect(config.mirrors['docker.io'].endpoint).toEqual(['http://127.0.0.1:5000', 'https://registry-1.docker.io']);
    expect(registryAuths(config)).toEqual({ 'mirror.example.com': { username: 'robot', password: 's3cret' } });
    expect(parseRegistriesConfig('')).toEqual({ mirrors: {}, configs: {} });
  });

  it.each([
    ['mirrors:\n  docker.io:\n    rewrite: { "^library/(.*)": "mirrored/$1" }\n', /mirrors\.docker\.io\.rewrite: .*k3s's containerd/],
    ['mirrors:\n  "*":\n    endpoint: ["http://127.0.0.1:5000"]\n', /"\*" wildcard mirror needs containerd 1\.7/],
    ['mirrors:\n  docker.io:\n    endpoint: ["ftp://x"]\n', /endpoint\[0\]: "ftp:\/\/x" is not an http\(s\) URL/],
    ['configs:\n  a.example:\n    auth: { token: x }\n', /configs\.a\.example\.auth\.token: unknown field/],
    ['registries: {}\n', /registries: unknown field/],
    ['mirrors: [1, 2]\n', /mirrors: must be a map/],
    ['mirrors: {\n', /not YAML/],
    [`a: &a [${'x,'.repeat(20)}]\nb: [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n`, /not YAML/],
  ])('refuses %j naming the field', (text, message) => {
    expect(() => parseRegistriesConfig(text)).toThrow(RegistriesConfigError);
    expect(() => parseRegistriesConfig(text)).toThrow(message);
  });

  it('refuses a file over 1 MiB before parsing it', () => {
    expect(() => parseRegistriesConfig(`# ${'x'.repeat(1024 * 1024)}`)).toThrow(/larger than/);
  });

  it("writes containerd's hosts.toml: the node's mirror first, then the mirrors in order, the registry itself last with its TLS", () => {
    const toml = registryHostsToml('docker.io', parseRegistriesConfig(K3S_STYLE), 'http://10.243.0.1:40000');
    expect(toml).toMatch(/^# .*\nserver = "https:\/\/registry-1\.docker\.io"\nca = "\/etc\/ssl\/hub-ca\.pem"\n/);
    const hosts = [...toml.matchAll(/\[host\."([^"]+)"\]/g)].map((m) => m[1]);
    expect(hosts).toEqual(['http://10.243.0.1:40000', 'http://127.0.0.1:5000']);
    const other = registryHostsToml('registry.example.com', parseRegistriesConfig(K3S_STYLE));
    expect(other).toContain(
      '[host."https://mirror.example.com/v2-prefix"]\n  capabilities = ["pull","resolve"]\n  ca = "/etc/ssl/mirror-ca.pem"\n  skip_verify = true',
    );
  });

  it('keeps one hosts directory per registry named or held, removing those of an earlier start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-registries-spec-'));
    try {
      await mkdir(join(dir, 'stale.example'));
      await writeFile(join(dir, 'stale.example', 'hosts.toml'), 'old');
      await writeRegistryHosts(dir, parseRegistriesConfig(K3S_STYLE), ['held.example:5000'], 'http://10.243.0.1:40000');
      expect((await readdir(dir)).sort()).toEqual(['docker.io', 'held.example:5000', 'mirror.example.com', 'registry-1.docker.io', 'registry.example.com']);
      expect(await readFile(join(dir, 'held.example:5000', 'hosts.toml'), 'utf8')).toContain('server = "https://held.example:5000"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
