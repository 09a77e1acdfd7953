import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { ROOT } from './support/apiserver-process';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

const EXECUTABLE = join(ROOT, 'bin', 'svc-node-agent.js');

function runAgent(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [EXECUTABLE, '--container-runtime-endpoint=unix:///nonexistent/containerd.sock', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('node agent: configuration files', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-node-agent-config-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const header = { apiVersion: 'nodeagent.config.svc.io/v1beta1', kind: 'NodeAgentConfiguration' };
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['an unknown field', { ...header, maxPod: 10 }, /unknown field "maxPod"/],
    ['a value out of range', { ...header, imageGCHighThresholdPercent: 101 }, /imageGCHighThresholdPercent/],
    ['a bad enum value', { ...header, authorization: { mode: 'Sometimes' } }, /authorization\.mode/],
    ['a content type the client cannot speak', { ...header, contentType: 'application/yaml' }, /contentType: Unsupported value: "application\/yaml"/],
    ['a bad duration', { ...header, syncFrequency: 'soon' }, /syncFrequency.*duration/],
    ['a field that must be greater than another', { ...header, imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60 }, /imageGCLowThresholdPercent/],
    ['a field that needs a feature gate', { ...header, cpuManagerPolicy: 'static' }, /cpuManagerPolicy.*CPUManager/],
    ['a setting whose behaviour the agent lacks', { ...header, evictionHard: { 'memory.available': '1Gi' } }, /evictionHard: Unsupported value.*eviction/],
    [
      'a cipher suite name Go does not know',
      { ...header, tlsCipherSuites: ['TLS_AES_128_GCM_SHA256', 'ECDHE-RSA-AES128-SHA'] },
      /tlsCipherSuites\[1\]: Unsupported value: "ECDHE-RSA-AES128-SHA"/,
    ],
    ['a wrong kind', { ...header, kind: 'KubeletConfiguration' }, /kind: must be "NodeAgentConfiguration"/],
  ];

  // Two agents at a time (one per core): each reads its file and exits before it reaches anything else.
  let results: Promise<Array<{ file: string; result: Awaited<ReturnType<typeof runAgent>> }>>;
  beforeAll(() => {
    const out: Array<{ file: string; result: Awaited<ReturnType<typeof runAgent>> }> = [];
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const i = next++;
        const file = join(dir, `config-${i}.yaml`);
        await writeFile(file, stringify(cases[i][1]));
        out[i] = { file, result: await runAgent([`--config=${file}`]) };
      }
    };
    results = Promise.all([worker(), worker()]).then(() => out);
  });

  it.each(cases.map((c, i) => [...c, i] as const))('exits 2 with one line naming the field for %s', async (_name, _config, message, i) => {
    const { file, result } = (await results)[i];
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(file);
    expect(lines[0]).toMatch(message);
  });

  it('exits 2 with one line for a credential provider configuration without a required field', async () => {
    const file = join(dir, 'providers.yaml');
    await writeFile(
      file,
      stringify({
        apiVersion: 'nodeagent.config.svc.io/v1beta1',
        kind: 'CredentialProviderConfig',
        providers: [{ name: 'plugin', apiVersion: 'credentialprovider.kubelet.k8s.io/v1', defaultCacheDuration: '1m' }],
      }),
    );
    const result = await runAgent([`--image-credential-provider-config=${file}`, `--image-credential-provider-bin-dir=${dir}`]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/providers\[0\]\.matchImages.*Required/)]);
  });
});

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node agent static pod and credential provider tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

describeWithRuntime('node agent: static pods and credential provider plugins', () => {
  let cluster: NodeCluster;
  let dir: string;
  const env = () => cluster.env();
  const staticDir = () => join(dir, 'manifests');
  const calls = () => join(dir, 'plugin-calls');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-node-agent-static-'));
    await mkdir(staticDir());
    await mkdir(join(dir, 'plugins'));
    // The plugin notes each request and grants credentials for its registry, cached per registry for 5 minutes.
    const plugin = join(dir, 'plugins', 'test-provider');
    await writeFile(
      plugin,
      [
        '#!/bin/sh',
        'cat >> "$CALLS"; echo >> "$CALLS"',
        'printf \'{"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderResponse","cacheKeyType":"Registry","cacheDuration":"5m","auth":{"registry.example.test":{"username":"user","password":"secret"}}}\'',
        '',
      ].join('\n'),
    );
    await chmod(plugin, 0o755);
    await writeFile(
      join(dir, 'providers.yaml'),
      stringify({
        apiVersion: 'nodeagent.config.svc.io/v1beta1',
        kind: 'CredentialProviderConfig',
        providers: [
          {
            name: 'test-provider',
            matchImages: ['*.example.test'],
            defaultCacheDuration: '1m',
            apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
            env: [{ name: 'CALLS', value: calls() }],
          },
        ],
      }),
    );
    await writeFile(
      join(staticDir(), 'web.yaml'),
      stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'static-web', labels: { tier: 'static' } },
        spec: {
          terminationGracePeriodSeconds: 2,
          containers: [{ name: 'web', image: 'busybox:1.36', command: ['sh', '-c', 'echo static pod started; exec sleep 3600'] }],
        },
      }),
    );
    cluster = await startNodeCluster({
      agent: {
        config: { staticPodPath: staticDir(), fileCheckFrequency: '1s' },
        args: [`--image-credential-provider-config=${join(dir, 'providers.yaml')}`, `--image-credential-provider-bin-dir=${join(dir, 'plugins')}`],
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs a static pod from its file, with a mirror pod in the API that shows its status and logs', async () => {
    const name = `static-web-${cluster.agent.nodeName}`;
    await eventually(async () => expect((await cluster.getPod(name)).status?.phase).toBe('Running'), 30_000, 250);
    const mirror = await cluster.getPod(name);
    expect(mirror.metadata.annotations).toMatchObject({ 'kubernetes.io/config.source': 'file' });
    expect(mirror.metadata.annotations['kubernetes.io/config.mirror']).toBe(mirror.metadata.annotations['kubernetes.io/config.hash']);
    expect(mirror.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Node', name: cluster.agent.nodeName })]);
    expect(mirror.spec.nodeName).toBe(cluster.agent.nodeName);
    expect(mirror.status.podIP).toMatch(/^10\./);
    expect(mirror.status.containerStatuses[0]).toMatchObject({ ready: true, restartCount: 0 });
    await eventually(async () => expect((await kubectl(['logs', name], env())).stdout).toBe('static pod started\n'), 10_000, 250);

    // Deleting the mirror pod does not stop the static pod: the mirror comes back, the container keeps running.
    const containerID = mirror.status.containerStatuses[0].containerID;
    await kubectl(['delete', 'pod', name, '--wait=false'], env());
    await eventually(
      async () => {
        const again = await cluster.getPod(name);
        expect(again.metadata.uid).not.toBe(mirror.metadata.uid);
        expect(again.status?.containerStatuses?.[0]).toMatchObject({ containerID, restartCount: 0, ready: true });
      },
      20_000,
      250,
    );

    // Removing the file stops the pod and removes its mirror and its containers.
    const staticUid = mirror.metadata.annotations['kubernetes.io/config.hash'];
    await unlink(join(staticDir(), 'web.yaml'));
    await eventually(async () => expect((await runKubectl(['get', 'pod', name], env())).stderr).toMatch(/NotFound/), 30_000, 250);
    await eventually(
      async () => expect(await cluster.containerd.cri.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': staticUid } })).toEqual([]),
      20_000,
      250,
    );
  }, 90_000);

  it('calls the credential provider plugin only for images it matches, and caches its answer', async () => {
    const pod = (name: string, image: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'main', image }] } });
    await cluster.apply(pod('private-a', 'registry.example.test/app:1.0'), pod('elsewhere', 'other.registry.test/app:1.0'));
    const waitingReason = async (name: string) => (await cluster.getPod(name)).status?.containerStatuses?.[0]?.state?.waiting?.reason;
    for (const name of ['private-a', 'elsewhere']) {
      await eventually(async () => expect(['ErrImagePull', 'ImagePullBackOff']).toContain(await waitingReason(name)), 40_000, 250);
    }
    await cluster.apply(pod('private-b', 'registry.example.test/app:1.0'));
    await eventually(async () => expect(['ErrImagePull', 'ImagePullBackOff']).toContain(await waitingReason('private-b')), 40_000, 250);
    const requests = (await readFile(calls(), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(requests).toEqual([
      { apiVersion: 'credentialprovider.kubelet.k8s.io/v1', kind: 'CredentialProviderRequest', image: 'registry.example.test/app:1.0' },
    ]);
  }, 120_000);
});
