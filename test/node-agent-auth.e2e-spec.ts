import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { ensureClientCa, issueClientCertificate } from '@svc/apiserver';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { httpsFetch } from './support/https-client';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node agent authentication tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

/** The user the API server's client certificate names when it calls node agents. */
const APISERVER_USER = 'svc-apiserver-nodeagent-client';

describeWithRuntime('node agent: projected service account tokens, and an authenticated, authorized server', () => {
  let cluster: NodeCluster;
  let dir: string;
  let agentCa: { certPem: string; keyPem: string };
  const env = () => cluster.env();
  const exec = async (pod: string, command: string) => (await kubectl(['exec', pod, '--', 'sh', '-c', command], env())).stdout;
  /** A request to the API server with nothing but a bearer token. */
  const whoami = async (token: string) => {
    const answer = await httpsFetch(`${cluster.apiserver.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
      method: 'POST',
      ca: cluster.apiserver.ca,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    });
    return { status: answer.status, body: JSON.parse(answer.body) as Record<string, unknown> };
  };
  /** A request to the node agent's secured server (whose serving certificate is its own, self-signed). */
  const agentGet = (path: string, headers: Record<string, string> = {}, identity?: { cert: string; key: string }) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port: cluster.agent.port, path, headers, rejectUnauthorized: false, agent: false, timeout: 10_000, ...identity },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-node-agent-auth-e2e-'));
    // The CA node agents trust for client certificates, and the API server's certificate from it.
    const ca = await ensureClientCa(join(dir, 'agent-client-ca'));
    agentCa = ca;
    const apiserverCert = await issueClientCertificate(ca, APISERVER_USER);
    await writeFile(join(dir, 'apiserver-nodeagent.crt'), apiserverCert.certPem);
    await writeFile(join(dir, 'apiserver-nodeagent.key'), apiserverCert.keyPem, { mode: 0o600 });
    cluster = await startNodeCluster({
      serviceAccountTokens: true,
      apiserverArgs: [
        '--authorization-mode=RBAC',
        `--nodeagent-client-certificate=${join(dir, 'apiserver-nodeagent.crt')}`,
        `--nodeagent-client-key=${join(dir, 'apiserver-nodeagent.key')}`,
      ],
      agent: {
        config: {
          authentication: { x509: { clientCAFile: ca.certFile }, webhook: { enabled: true, cacheTTL: '1s' }, anonymous: { enabled: false } },
          authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '1s', cacheUnauthorizedTTL: '1s' } },
        },
      },
    });
    // The bootstrap role Kubernetes gives the API server's node agent client.
    await cluster.apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'apiserver-node-agent-client' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kubelet-api-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: APISERVER_USER }],
    });
    await kubectl(['create', 'serviceaccount', 'robot'], env());
    await kubectl(['create', 'configmap', 'settings', '--from-literal=mode=fast'], env());
    await kubectl(['create', 'secret', 'generic', 'creds', '--from-literal=password=s3cret'], env());
    await cluster.apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'holder', labels: { app: 'holder' }, annotations: { note: 'projected' } },
      spec: {
        serviceAccountName: 'robot',
        volumes: [
          {
            name: 'access',
            projected: {
              sources: [
                { serviceAccountToken: { path: 'token', expirationSeconds: 3600 } },
                { serviceAccountToken: { path: 'vault-token', audience: 'vault', expirationSeconds: 600 } },
                { configMap: { name: 'settings' } },
                { secret: { name: 'creds' } },
                {
                  downwardAPI: {
                    items: [
                      { path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } },
                      { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
                      { path: 'uid', fieldRef: { fieldPath: 'metadata.uid' } },
                      { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                      { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
                    ],
                  },
                },
              ],
            },
          },
        ],
        containers: [
          { name: 'main', image: 'busybox:1.36', command: ['sh', '-c', 'exec sleep 3600'], volumeMounts: [{ name: 'access', mountPath: '/var/run/access' }] },
        ],
      },
    });
    await eventually(async () => expect((await cluster.getPod('holder')).status.phase).toBe('Running'), 40_000, 250);
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('kubectl logs and exec reach the agent with the API server client certificate, under Webhook authorization', async () => {
    expect(await exec('holder', 'echo through the agent')).toBe('through the agent\n');
    const logs = await runKubectl(['logs', 'holder'], env());
    expect(logs.code).toBe(0);
    // Without the role the agent refuses the API server itself.
    await kubectl(['delete', 'clusterrolebinding', 'apiserver-node-agent-client'], env());
    await eventually(
      async () => {
        const refused = await runKubectl(['logs', 'holder'], env());
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain(`Forbidden (user=${APISERVER_USER}, verb=get, resource=nodes, subresource=proxy)`);
      },
      15_000,
      500,
    );
    await kubectl(['create', 'clusterrolebinding', 'apiserver-node-agent-client', '--clusterrole=system:kubelet-api-admin', `--user=${APISERVER_USER}`], env());
    await eventually(async () => expect(await exec('holder', 'echo again')).toBe('again\n'), 15_000, 500);
  }, 60_000);

  it('projects the service account token, configMap, secret and downward API files into one volume', async () => {
    const uid = (await cluster.getPod('holder')).metadata.uid;
    expect(await exec('holder', 'cd /var/run/access; cat namespace; echo; cat name; echo; cat uid; echo; cat mode; echo; cat password')).toBe(
      `default\nholder\n${uid}\nfast\ns3cret`,
    );
    expect(await exec('holder', 'cat /var/run/access/labels; echo; cat /var/run/access/annotations')).toMatch(/^app="holder"\n(.*\n)?note="projected"/);
    // Labels follow the pod.
    await kubectl(['label', 'pod', 'holder', 'tier=back'], env());
    await eventually(async () => expect(await exec('holder', 'cat /var/run/access/labels')).toBe('app="holder"\ntier="back"'), 20_000, 500);
    // Kubernetes' layout: each name is a symlink through ..data, which points at a timestamped directory.
    expect(await exec('holder', 'readlink /var/run/access/token; readlink /var/run/access/..data')).toMatch(/^\.\.data\/token\n\.\.\d/);
  });

  it('the token in the container authenticates as the service account, bound to the pod; an audience of its own is not the API server', async () => {
    const token = await exec('holder', 'cat /var/run/access/token');
    const answer = await whoami(token);
    expect(answer.status).toBe(201);
    const userInfo = (answer.body.status as { userInfo: { username: string; groups: string[]; extra: Record<string, string[]> } }).userInfo;
    expect(userInfo.username).toBe('system:serviceaccount:default:robot');
    expect(userInfo.groups).toEqual(expect.arrayContaining(['system:serviceaccounts', 'system:serviceaccounts:default']));
    expect(userInfo.extra['authentication.kubernetes.io/pod-name']).toEqual(['holder']);
    const vault = await exec('holder', 'cat /var/run/access/vault-token');
    expect(vault).not.toBe(token);
    expect(JSON.parse(Buffer.from(vault.split('.')[1], 'base64url').toString()).aud).toEqual(['vault']);
    expect((await whoami(vault)).status).toBe(401);
  });

  it('the agent refuses requests without credentials (401) and asks the API server what a token or certificate user may do (403, then 200)', async () => {
    expect((await agentGet('/pods')).status).toBe(401);
    const token = await exec('holder', 'cat /var/run/access/token');
    const bearer = { Authorization: `Bearer ${token}` };
    const denied = await agentGet('/pods', bearer);
    expect(denied.status).toBe(403);
    expect(denied.body).toContain('user=system:serviceaccount:default:robot, verb=get, resource=nodes, subresource=proxy');
    expect((await agentGet('/debug/pprof/', bearer)).status).toBe(403);
    // A certificate from the agent's client CA names its user; one from another CA names nobody.
    const carol = await issueClientCertificate(agentCa, 'carol', ['team-a']);
    expect((await agentGet('/pods', {}, { cert: carol.certPem, key: carol.keyPem })).status).toBe(403);
    const rogueCa = await ensureClientCa(join(dir, 'rogue-ca'));
    const mallory = await issueClientCertificate(rogueCa, APISERVER_USER);
    expect((await agentGet('/pods', {}, { cert: mallory.certPem, key: mallory.keyPem })).status).toBe(401);
    await kubectl(['create', 'clusterrole', 'node-proxy', '--verb=get', '--resource=nodes/proxy'], env());
    await kubectl(['create', 'clusterrolebinding', 'robot-node-proxy', '--clusterrole=node-proxy', '--serviceaccount=default:robot', '--user=carol'], env());
    await eventually(async () => expect((await agentGet('/pods', bearer)).status).toBe(200), 15_000, 500);
    expect(JSON.parse((await agentGet('/pods', bearer)).body).kind).toBe('PodList');
    await eventually(async () => expect((await agentGet('/pods', {}, { cert: carol.certPem, key: carol.keyPem })).status).toBe(200), 15_000, 500);
    // The profiler (enableProfilingHandler, on by default) is nodes/proxy too.
    const index = await agentGet('/debug/pprof/', bearer);
    expect(index.status).toBe(200);
    expect(index.body).toMatch(/profile/);
    const cpu = await agentGet('/debug/pprof/profile?seconds=1', bearer);
    expect(cpu.status).toBe(200);
    expect(cpu.body.length).toBeGreaterThan(0);
    expect((await agentGet('/debug/pprof/profile?seconds=0', bearer)).status).toBe(400);
    // /metrics is nodes/metrics, which the role does not give.
    expect((await agentGet('/metrics', bearer)).status).toBe(403);
  }, 60_000);

  it('once the pod is deleted, its token is refused', async () => {
    const token = await exec('holder', 'cat /var/run/access/token');
    expect((await whoami(token)).status).toBe(201);
    await kubectl(['delete', 'pod', 'holder', '--grace-period=1', '--wait=true'], env(), 40_000);
    expect((await whoami(token)).status).toBe(401);
  }, 60_000);
});
