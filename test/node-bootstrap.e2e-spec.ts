import { webcrypto, X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent } from 'node:https';
import { connect } from 'node:tls';
import { Pkcs10CertificateRequestGenerator } from '@peculiar/x509';
import { startContainerd, localRuntimeUnavailable, type ContainerdProcess } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { compactVerify } from 'jose';
import { parse as parseYaml, stringify } from 'yaml';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { httpsFetch } from './support/https-client';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startNodeAgentProcess, type NodeAgentProcess } from './support/node-agent-process';
import { randomPodCidr } from './support/node-cluster';

// The module npm start sets TLS bootstrap up with (kubeadm's bindings, cluster-info, a token).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeBootstrap = require('../bin/node-bootstrap.js') as {
  ensureNodeBootstrap(adminConfig: string, options: { bootstrapConfigPath?: string }): Promise<string | undefined>;
  bootstrapTokenSecret(token: string, options?: { ttlMs?: number }): Record<string, unknown>;
  bootstrapKubeconfig(server: string, caPem: string, token: string): string;
};

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`The node bootstrap tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

/** Client certificates live this long here, so that the agent renews its own within the test. */
const SIGNING_DURATION_S = 60;

interface Csr {
  metadata: { name: string };
  spec: { signerName: string; username: string; groups?: string[]; usages: string[] };
  status?: { conditions?: Array<{ type: string; reason?: string; message?: string }>; certificate?: string };
}

/** A PKCS#10 request (PEM) of a new P-256 key for the subject. */
async function certificateRequest(subject: string): Promise<string> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  return (await Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: algorithm })).toString('pem');
}

function csrManifest(name: string, request: string | Buffer, signerName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(request).toString('base64'), signerName, usages: ['client auth'], ...extra },
  };
}

describeWithRuntime('node TLS bootstrap: CertificateSigningRequests, bootstrap tokens, rotation', () => {
  let containerd: ContainerdProcess;
  let apiserver: ApiServerProcess;
  let controllers: ControllerManagerProcess;
  let agent: NodeAgentProcess;
  let token: string;
  let nodeConfig: string;
  const env = () => apiserver.kubectlEnv;
  const csrs = async (): Promise<Csr[]> => JSON.parse((await kubectl(['get', 'csr', '-o', 'json'], env())).stdout).items;
  /** An HTTPS agent with the administrator's client certificate of the server's connection file. */
  const adminAgent = async () => {
    const user = parseYaml(await readFile(apiserver.kubeconfig, 'utf8')).users[0].user;
    const decode = (key: string) => Buffer.from(user[key], 'base64').toString('utf8');
    return new Agent({ ca: apiserver.ca, cert: decode('client-certificate-data'), key: decode('client-key-data') });
  };
  const apply = async (object: unknown) => {
    const file = join(apiserver.dir, `manifest-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, stringify(object));
    return runKubectl(['create', '-f', file], env());
  };

  beforeAll(async () => {
    [containerd, apiserver] = await Promise.all([
      startContainerd({ importImages: false }),
      startApiServerProcess({ args: ['--enable-bootstrap-token-auth', '--authorization-mode=Node,RBAC', '--nodeagent-preferred-address-types=InternalIP'] }),
    ]);
    // The cluster's client CA signs: certificates it issues authenticate to the API server.
    const certs = join(apiserver.dir, 'certs');
    controllers = await startControllerManagerProcess(apiserver, [
      '--controllers=csrsigning,csrapproving,csrcleaner,bootstrapsigner,tokencleaner',
      `--cluster-signing-cert-file=${join(certs, 'client-ca.crt')}`,
      `--cluster-signing-key-file=${join(certs, 'client-ca.key')}`,
      `--cluster-signing-duration=${SIGNING_DURATION_S}s`,
    ]);
    const bootstrapConfig = join(apiserver.dir, 'bootstrap.svcconfig');
    token = (await nodeBootstrap.ensureNodeBootstrap(apiserver.kubeconfig, { bootstrapConfigPath: bootstrapConfig }))!;
    nodeConfig = join(apiserver.dir, 'node.svcconfig');
    // The agent has nothing but the bootstrap token: its own connection file does not exist yet.
    agent = await startNodeAgentProcess(apiserver, {
      endpoint: containerd.endpoint,
      args: [`--svcconfig=${nodeConfig}`, `--bootstrap-kubeconfig=${bootstrapConfig}`],
      config: { podCIDR: randomPodCidr(), rotateCertificates: true, serverTLSBootstrap: true, nodeLeaseDurationSeconds: 8 },
      readyTimeoutMs: 60_000,
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([agent?.cleanup().finally(() => containerd?.stop()), controllers?.stop()]);
    await apiserver?.stop();
  }, 60_000);

  it('joins a node with only a bootstrap token: its client request is approved automatically and issued', async () => {
    const id = token.split('.')[0];
    const first = (await csrs()).find((c) => c.spec.username === `system:bootstrap:${id}`)!;
    expect(first.spec).toMatchObject({
      signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
      groups: expect.arrayContaining(['system:bootstrappers', 'system:authenticated']),
    });
    expect(first.status?.conditions?.[0]).toMatchObject({
      type: 'Approved',
      reason: 'AutoApproved',
      message: 'Auto approving kubelet client certificate after SubjectAccessReview.',
    });
    // The node's own connection file names the certificate it was issued: CN system:node:<name>, O system:nodes, from the cluster CA.
    const written = parseYaml(await readFile(nodeConfig, 'utf8'));
    const pem = await readFile(written.users[0].user['client-certificate'], 'utf8');
    const certificate = new X509Certificate(pem);
    expect(certificate.subject.split('\n').sort()).toEqual([`CN=system:node:${agent.nodeName}`, 'O=system:nodes']);
    expect(certificate.verify(new X509Certificate(await readFile(join(apiserver.dir, 'certs', 'client-ca.crt'))).publicKey)).toBe(true);
    const node = JSON.parse((await kubectl(['get', 'node', agent.nodeName, '-o', 'json'], env())).stdout);
    expect(node.metadata.name).toBe(agent.nodeName);
    const table = (await kubectl(['get', 'csr', first.metadata.name], env())).stdout;
    expect(table).toMatch(/^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\n/);
    expect(table).toMatch(
      new RegExp(`${first.metadata.name}\\s+\\S+\\s+kubernetes.io/kube-apiserver-client-kubelet\\s+system:bootstrap:${id}\\s+<none>\\s+Approved,Issued`),
    );
  });

  it('serves with the serving certificate an administrator approves with kubectl certificate approve', async () => {
    let serving: Csr | undefined;
    await eventually(async () => {
      serving = (await csrs()).find((c) => c.spec.signerName === 'kubernetes.io/kubelet-serving');
      expect(serving).toBeDefined();
    }, 20_000);
    expect(serving!.spec.username).toBe(`system:node:${agent.nodeName}`);
    expect(serving!.status?.conditions ?? []).toEqual([]);
    expect((await kubectl(['certificate', 'approve', serving!.metadata.name], env())).stdout).toBe(
      `certificatesigningrequest.certificates.k8s.io/${serving!.metadata.name} approved\n`,
    );
    const peerSubject = () =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: agent.port, rejectUnauthorized: false }, () => {
          resolve(socket.getPeerX509Certificate()?.subject ?? '');
          socket.end();
        });
        socket.on('error', reject);
      });
    await eventually(async () => expect((await peerSubject()).split('\n').sort()).toEqual([`CN=system:node:${agent.nodeName}`, 'O=system:nodes']), 20_000);
  });

  it('renews its client certificate before it expires, with no failed lease renewal', async () => {
    const firstPem = await readFile(join(agent.dir, 'pki', 'nodeagent-client-current.pem'), 'utf8');
    const firstExpiry = Date.parse(new X509Certificate(firstPem).validTo);
    await eventually(async () => {
      const renewal = (await csrs()).find((c) => c.spec.username === `system:node:${agent.nodeName}` && c.spec.signerName.endsWith('-kubelet'));
      expect(renewal?.status?.conditions?.[0]?.message).toBe('Auto approving self kubelet client certificate after SubjectAccessReview.');
      expect(renewal?.status?.certificate).toBeDefined();
    }, SIGNING_DURATION_S * 1000);
    await eventually(async () => expect(agent.stderr()).toMatch(/client certificate rotated/), 10_000);
    expect(Date.now()).toBeLessThan(firstExpiry);
    // Past the first certificate's end the node still renews its Lease, with the new one.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstExpiry - Date.now())));
    await eventually(async () => {
      const lease = JSON.parse((await kubectl(['get', 'lease', '-n', 'kube-node-lease', agent.nodeName, '-o', 'json'], env())).stdout);
      expect(Date.parse(lease.spec.renewTime)).toBeGreaterThan(firstExpiry);
    }, 10_000);
    expect(agent.stderr()).not.toMatch(/node lease:/);
  }, 120_000);

  it('refuses a client certificate request for system:masters, and approval without the approve verb', async () => {
    const result = await apply(csrManifest('masters', await certificateRequest('CN=intruder, O=system:masters'), 'kubernetes.io/kube-apiserver-client'));
    expect(result.stderr).toContain(
      'certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
    expect((await apply(csrManifest('alice', await certificateRequest('CN=alice, O=developers'), 'kubernetes.io/kube-apiserver-client'))).code).toBe(0);
    // Writing the approval subresource is not enough: approving needs `approve` on the signer too.
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'csr-approval-writer' },
      rules: [
        { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval'], verbs: ['get', 'update'] },
      ],
    });
    await kubectl(['create', 'clusterrolebinding', 'csr-approval-writer', '--clusterrole=csr-approval-writer', '--user=approver'], env());
    const refused = await runKubectl(['certificate', 'approve', 'alice', '--as=approver'], env());
    expect(refused.stderr).toContain(
      'certificatesigningrequests.certificates.k8s.io "alice" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"',
    );
    await kubectl(['certificate', 'deny', 'alice'], env());
    const alice = JSON.parse((await kubectl(['get', 'csr', 'alice', '-o', 'json'], env())).stdout);
    expect(alice.status.conditions[0]).toMatchObject({ type: 'Denied', status: 'True', reason: 'KubectlDeny' });
    expect((await kubectl(['get', 'csr', 'alice'], env())).stdout).toMatch(
      /alice\s+\S+\s+kubernetes.io\/kube-apiserver-client\s+svc-admin\s+<none>\s+Denied\n/,
    );
  });

  it('issues an approved request of the API server client signer under its spec name, with the lifetime asked', async () => {
    expect(
      (await apply(csrManifest('bob', await certificateRequest('CN=bob, O=developers'), 'svc.io/apiserver-client', { expirationSeconds: 600 }))).code,
    ).toBe(0);
    await kubectl(['certificate', 'approve', 'bob'], env());
    let certificate: X509Certificate | undefined;
    await eventually(async () => {
      const bob = JSON.parse((await kubectl(['get', 'csr', 'bob', '-o', 'json'], env())).stdout);
      expect(bob.status.certificate).toBeDefined();
      certificate = new X509Certificate(Buffer.from(bob.status.certificate, 'base64'));
    }, 15_000);
    expect(certificate!.subject.split('\n').sort()).toEqual(['CN=bob', 'O=developers']);
    // min(expirationSeconds, --cluster-signing-duration) after a backdate of a fifth of it.
    const lifetime = Date.parse(certificate!.validTo) - Date.parse(certificate!.validFrom);
    expect(lifetime).toBeGreaterThanOrEqual(SIGNING_DURATION_S * 1000);
    expect(lifetime).toBeLessThanOrEqual(SIGNING_DURATION_S * 1200 + 2_000);
  });

  it('refuses malformed requests with Kubernetes’ messages', async () => {
    const good = await certificateRequest('CN=carol');
    const malformed = await apply(csrManifest('bad-pem', 'not a PEM block', 'kubernetes.io/kube-apiserver-client'));
    expect(malformed.stderr).toContain(
      'The CertificateSigningRequest "bad-pem" is invalid: spec.request: Invalid value: []byte{0x6e, 0x6f, 0x74, 0x20, 0x61, 0x20, 0x50, 0x45, 0x4d, 0x20, 0x62, 0x6c, 0x6f, 0x63, 0x6b}: PEM block type must be CERTIFICATE REQUEST',
    );
    const signer = await apply(csrManifest('bad-signer', good, 'kube-apiserver-client'));
    expect(signer.stderr).toContain(
      `spec.signerName: Invalid value: "kube-apiserver-client": must be a fully qualified domain and path of the form 'example.com/signer-name'`,
    );
    const short = await apply(csrManifest('too-short', good, 'example.com/signer', { expirationSeconds: 599 }));
    expect(short.stderr).toContain('spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)');
    const legacy = await apply(csrManifest('legacy', good, 'kubernetes.io/legacy-unknown'));
    expect(legacy.stderr).toContain(
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    );
    const usage = await apply(csrManifest('bad-usage', good, 'example.com/signer', { usages: ['flying'] }));
    expect(usage.stderr).toContain('spec.usages[0]: Unsupported value: "flying": supported values:');
  });

  it('answers an expired bootstrap token with 401, and publishes cluster-info signed with the token', async () => {
    const expired = 'abcdef.0123456789abcdef';
    const secret = nodeBootstrap.bootstrapTokenSecret(expired, { ttlMs: -60_000 });
    // The token cleaner would delete it at once: write it, then ask before it does (or after: 401 either way).
    expect((await apply(secret)).code).toBe(0);
    const answer = await httpsFetch(`${apiserver.url}/api/v1/namespaces`, { ca: apiserver.ca, headers: { Authorization: `Bearer ${expired}` } });
    expect(answer.status).toBe(401);
    await eventually(
      async () => expect((await runKubectl(['get', 'secret', '-n', 'kube-system', 'bootstrap-token-abcdef'], env())).stderr).toMatch(/NotFound|not found/),
      15_000,
    );
    // cluster-info carries a detached JWS of its kubeconfig made with the node token.
    const id = token.split('.')[0];
    let signature = '';
    await eventually(async () => {
      const info = JSON.parse((await kubectl(['get', 'configmap', '-n', 'kube-public', 'cluster-info', '-o', 'json'], env())).stdout);
      signature = info.data[`jws-kubeconfig-${id}`];
      expect(signature).toMatch(/^[\w-]+\.\.[\w-]+$/);
      const [header, , sig] = signature.split('.');
      const payload = Buffer.from(info.data.kubeconfig).toString('base64url');
      const verified = await compactVerify(`${header}.${payload}.${sig}`, new TextEncoder().encode(token.split('.')[1]));
      expect(verified.protectedHeader).toEqual({ alg: 'HS256', kid: id });
    }, 15_000);
  });

  it('serves the kind for kubectl: discovery, explain and protobuf', async () => {
    const resources = (await kubectl(['api-resources', '--api-group=certificates.k8s.io'], env())).stdout;
    expect(resources).toMatch(/certificatesigningrequests\s+csr\s+certificates.k8s.io\/v1\s+false\s+CertificateSigningRequest/);
    const explain = (await kubectl(['explain', 'csr.spec.signerName'], env())).stdout;
    expect(explain).toContain('FIELD: signerName <string>');
    const protobuf = await httpsFetch(`${apiserver.url}/apis/certificates.k8s.io/v1/certificatesigningrequests/alice`, {
      ca: apiserver.ca,
      agent: await adminAgent(),
      headers: { Accept: 'application/vnd.kubernetes.protobuf' },
    });
    expect(protobuf.status).toBe(200);
    expect(protobuf.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
  });
});
