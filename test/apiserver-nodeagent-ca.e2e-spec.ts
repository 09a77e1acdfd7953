import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCertificates } from '@svc/apiserver';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { ApiClient } from './support/api-client';
import { kubectl, runKubectl } from './support/kubectl-run';

/**
 * `--nodeagent-certificate-authority`: the API server verifies a node agent's serving certificate
 * with it before it passes on a log, exec or proxy request. The agent here is a stand-in HTTPS
 * server on loopback (the Node's address and port point at it), so no container runtime is needed.
 */
describe('API server: --nodeagent-certificate-authority', () => {
  let dir: string;
  let agent: Server;
  let agentPort: number;
  const requests: string[] = [];
  const servers: ApiServerProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-nodeagent-ca-e2e-'));
    // The agent's CA and its serving pair for 127.0.0.1; a second, unrelated CA.
    const agentCerts = await ensureServingCertificates({ certDir: join(dir, 'agent'), bindAddress: '127.0.0.1' });
    await ensureServingCertificates({ certDir: join(dir, 'other'), bindAddress: '127.0.0.1' });
    agent = createServer({ cert: agentCerts.certPem, key: agentCerts.keyPem }, (req, res) => {
      requests.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('hello from the agent\n');
    });
    await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', () => resolve()));
    agentPort = (agent.address() as { port: number }).port;
  }, 30_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await new Promise<void>((resolve) => agent?.close(() => resolve()));
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  /** An API server trusting `ca` for agents, with a Node at the stand-in agent and a Pod bound to it. */
  async function serverTrusting(ca: string): Promise<ApiServerProcess> {
    const server = await startApiServerProcess({ args: [`--nodeagent-certificate-authority=${ca}`] });
    servers.push(server);
    const client = new ApiClient(server.url, server.ca);
    try {
      expect((await client.post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'standin' } })).status).toBe(201);
      const status = { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: agentPort } } };
      expect((await client.patch('/api/v1/nodes/standin/status', 'application/merge-patch+json', { status })).status).toBe(200);
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'standin', containers: [{ name: 'c', image: 'busybox' }] } };
      expect((await client.post('/api/v1/namespaces/default/pods', pod)).status).toBe(201);
    } finally {
      client.close();
    }
    return server;
  }

  it('reaches an agent whose serving certificate chains to the given CA', async () => {
    const server = await serverTrusting(join(dir, 'agent', 'ca.crt'));
    const logs = await kubectl(['logs', 'p'], server.kubectlEnv);
    expect(logs.stdout).toBe('hello from the agent\n');
    expect(requests.some((path) => path.startsWith('/containerLogs/default/p/c'))).toBe(true);
  }, 60_000);

  it('refuses an agent whose serving certificate the CA did not sign, and sends it nothing', async () => {
    const before = requests.length;
    const server = await serverTrusting(join(dir, 'other', 'ca.crt'));
    const logs = await runKubectl(['logs', 'p'], server.kubectlEnv);
    expect(logs.code).not.toBe(0);
    expect(logs.stderr).toMatch(/cannot reach the node agent on 127\.0\.0\.1:\d+: .*certificate/);
    expect(requests.length).toBe(before);
  }, 60_000);
});
