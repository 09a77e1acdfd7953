import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { clientConnectionConfig, clientHost, serverUrl, writeClientConnectionFile } from './client-connection-file';

describe('client connection file', () => {
  it('dials loopback for wildcard binds and the bind address otherwise', () => {
    for (const wildcard of ['', '0.0.0.0', '::', '[::]']) expect(clientHost(wildcard)).toBe('127.0.0.1');
    expect(clientHost('10.0.0.5')).toBe('10.0.0.5');
    expect(clientHost('[fd00::5]')).toBe('fd00::5');
    expect(serverUrl('127.0.0.1', 6443)).toBe('https://127.0.0.1:6443');
    expect(serverUrl('fd00::5', 6443)).toBe('https://[fd00::5]:6443');
    expect(serverUrl('api.example.com', 443)).toBe('https://api.example.com:443');
  });

  it('omits certificate-authority-data when there is no CA to trust', () => {
    const config = clientConnectionConfig('https://127.0.0.1:6443') as { clusters: { cluster: Record<string, string> }[] };
    expect(config.clusters[0].cluster).toEqual({ server: 'https://127.0.0.1:6443' });
  });

  it('writes the kubeconfig owner-only, creating the directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-svcconfig-'));
    try {
      const path = join(dir, 'nested', 'svcconfig');
      await writeClientConnectionFile(path, 'https://127.0.0.1:6443', 'PEM');
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(parse(await readFile(path, 'utf8'))).toEqual({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'svc', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from('PEM').toString('base64') } }],
        users: [{ name: 'svc', user: { username: 'anonymous' } }],
        contexts: [{ name: 'svc', context: { cluster: 'svc', user: 'svc' } }],
        'current-context': 'svc',
        preferences: {},
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
