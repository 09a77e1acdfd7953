import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { localRuntimeUnavailable, startContainerd, type ContainerdProcess } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startNodeAgentProcess, type NodeAgentProcess } from './support/node-agent-process';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node agent tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

/** A /24 of its own for each run, so that concurrent runs never share a bridge subnet. */
function podCidr(): string {
  return `10.${200 + Math.floor(Math.random() * 50)}.${Math.floor(Math.random() * 250)}.0/24`;
}

describeWithRuntime('node agent: pods run in containers', () => {
  let containerd: ContainerdProcess;
  let apiserver: ApiServerProcess;
  let agent: NodeAgentProcess;
  const env = () => apiserver.kubectlEnv;
  const getPod = async (name: string) => JSON.parse((await kubectl(['get', 'pod', name, '-o', 'json'], env())).stdout);

  beforeAll(async () => {
    [containerd, apiserver] = await Promise.all([startContainerd(), startApiServerProcess()]);
    agent = await startNodeAgentProcess(apiserver, { endpoint: containerd.endpoint, config: { podCIDR: podCidr() } });
  }, 90_000);

  afterAll(async () => {
    await agent?.cleanup();
    await containerd?.stop();
    await apiserver?.stop();
  }, 60_000);

  it('registers its Node with the well-known labels, capacity, node info and a Ready condition', async () => {
    await eventually(
      async () => {
        const node = JSON.parse((await kubectl(['get', 'node', agent.nodeName, '-o', 'json'], env())).stdout);
        expect(node.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': agent.nodeName, 'kubernetes.io/os': 'linux' });
        expect(node.metadata.labels['kubernetes.io/arch']).toBeTruthy();
        expect(node.status.capacity).toMatchObject({ pods: '110' });
        expect(node.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\//);
        expect(node.status.addresses).toContainEqual({ type: 'InternalIP', address: '127.0.0.1' });
        expect(node.status.conditions.map((c: { type: string }) => c.type).sort()).toEqual(['DiskPressure', 'MemoryPressure', 'PIDPressure', 'Ready']);
        expect(node.status.conditions.find((c: { type: string }) => c.type === 'Ready').status).toBe('True');
      },
      20_000,
      250,
    );
    await eventually(
      async () => {
        const lease = JSON.parse((await kubectl(['get', 'lease', agent.nodeName, '-n', 'svc-node-lease', '-o', 'json'], env())).stdout);
        expect(lease.spec).toMatchObject({ holderIdentity: agent.nodeName, leaseDurationSeconds: 40 });
        expect(lease.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Node', name: agent.nodeName })]);
      },
      15_000,
      250,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nagent log:\n${agent.stderr()}`);
    });
  }, 30_000);

  it('runs a pod bound to it: Running with an IP and the status Kubernetes writes', async () => {
    await kubectl(
      [
        'run',
        'hello',
        '--image=busybox:1.36',
        `--overrides={"spec":{"nodeName":"${agent.nodeName}"}}`,
        '--',
        'sh',
        '-c',
        'echo hello from busybox; exec sleep 3600',
      ],
      env(),
    );
    await eventually(async () => expect((await getPod('hello')).status.phase).toBe('Running'), 30_000, 250);
    const pod = await getPod('hello');
    expect(pod.status.podIP).toMatch(/^10\.\d+\.\d+\.\d+$/);
    expect(pod.status.hostIP).toBe('127.0.0.1');
    expect(pod.status.qosClass).toBe('BestEffort');
    expect(pod.status.startTime).toBeTruthy();
    const conditions = Object.fromEntries(pod.status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]));
    await eventually(async () => {
      const ready = Object.fromEntries((await getPod('hello')).status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]));
      expect(ready).toMatchObject({ Initialized: 'True', Ready: 'True', ContainersReady: 'True', PodScheduled: 'True' });
    });
    expect(Object.keys(conditions).sort()).toEqual(['ContainersReady', 'Initialized', 'PodScheduled', 'Ready']);
    const [status] = (await getPod('hello')).status.containerStatuses;
    expect(status).toMatchObject({ name: 'hello', ready: true, started: true, restartCount: 0, image: 'busybox:1.36' });
    expect(status.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(status.imageID).toMatch(/sha256:[0-9a-f]{64}/);
    expect(status.state.running.startedAt).toBeTruthy();
    const table = await kubectl(['get', 'pod', 'hello', '-o', 'wide'], env());
    expect(table.stdout).toMatch(new RegExp(`hello\\s+1/1\\s+Running\\s+0\\s+\\S+\\s+${pod.status.podIP.replace(/\./g, '\\.')}\\s+${agent.nodeName}`));
    // This agent has no clusterDNS: a ClusterFirst pod gets the node's resolver, and the kubelet's warning on the pod and the node.
    const missing = 'kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.';
    const events = JSON.parse((await kubectl(['get', 'events', '--field-selector', 'reason=MissingClusterDNS', '-o', 'json'], env())).stdout).items;
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'Warning',
        involvedObject: expect.objectContaining({ kind: 'Pod', name: 'hello' }),
        message: expect.stringContaining(missing),
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'Warning',
        involvedObject: expect.objectContaining({ kind: 'Node', name: agent.nodeName, uid: agent.nodeName }),
        message: missing,
      }),
    );
  }, 60_000);

  it('shows a pull failure of an image that is not there as ErrImagePull, then ImagePullBackOff', async () => {
    // No tag means pull policy Always, and there is no registry to pull from.
    await kubectl(['run', 'latest', '--image=busybox', `--overrides={"spec":{"nodeName":"${agent.nodeName}"}}`], env());
    await eventually(
      async () => {
        const reason = (await getPod('latest')).status?.containerStatuses?.[0]?.state?.waiting?.reason;
        expect(['ErrImagePull', 'ImagePullBackOff']).toContain(reason);
      },
      30_000,
      250,
    );
    await eventually(async () => expect((await getPod('latest')).status.containerStatuses[0].state.waiting.reason).toBe('ImagePullBackOff'), 30_000, 250);
    expect((await getPod('latest')).status.phase).toBe('Pending');
    const never = await runKubectl(
      ['run', 'never', '--image=busybox:0.0-absent', '--image-pull-policy=Never', `--overrides={"spec":{"nodeName":"${agent.nodeName}"}}`],
      env(),
    );
    expect(never.code).toBe(0);
    await eventually(async () => expect((await getPod('never')).status.containerStatuses[0].state.waiting.reason).toBe('ErrImageNeverPull'), 30_000, 250);
  }, 90_000);

  it("reports an invalid image reference as InvalidImageName with the kubelet's message and an event, and never pulls it", async () => {
    const cases = [
      ['traversal', '../../../../etc/passwd', 'invalid reference format'],
      ['upper', 'BusyBox:1.36', 'invalid reference format: repository name (library/BusyBox) must be lowercase'],
      ['short-digest', `busybox@sha256:${'a'.repeat(40)}`, 'invalid checksum digest length'],
      ['odd-digest', `busybox@sha256:${'G'.repeat(64)}`, 'invalid reference format'],
    ] as const;
    // kubectl run checks the reference itself; a manifest reaches the server as written.
    const manifest = join(apiserver.dir, 'invalid-images.yaml');
    const pods = cases.map(([name, image]) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { nodeName: agent.nodeName, containers: [{ name: 'c', image }] },
    }));
    await writeFile(manifest, pods.map((pod) => stringify(pod)).join('---\n'));
    await kubectl(['create', '-f', manifest], env());
    for (const [name, image, problem] of cases) {
      const message = `Failed to apply default image tag "${image}": couldn't parse image reference "${image}": ${problem}`;
      await eventually(
        async () => expect((await getPod(name)).status?.containerStatuses?.[0]?.state?.waiting).toEqual({ reason: 'InvalidImageName', message }),
        30_000,
        250,
      );
      // The agent's events are written after the status it reports, and may arrive a moment later.
      await eventually(
        async () => {
          const events = JSON.parse((await kubectl(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json'], env())).stdout);
          expect(events.items).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'InspectFailed', message }));
          expect(events.items.map((e: { reason: string }) => e.reason)).not.toContain('Pulling');
        },
        10_000,
        250,
      );
    }
    // A resync later it is still InvalidImageName, not a pull failure backing off.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    for (const [name] of cases) expect((await getPod(name)).status.containerStatuses[0].state.waiting.reason).toBe('InvalidImageName');
  }, 90_000);

  it('reports the version the API server reports as its kubeletVersion', async () => {
    const server = JSON.parse((await kubectl(['version', '-o', 'json'], env())).stdout).serverVersion;
    expect(server.gitVersion).toMatch(/^v1\.32\.\d+\+/);
    const node = JSON.parse((await kubectl(['get', 'node', agent.nodeName, '-o', 'json'], env())).stdout);
    expect(node.status.nodeInfo.kubeletVersion).toBe(server.gitVersion);
    expect((await kubectl(['get', 'node', agent.nodeName, '--no-headers'], env())).stdout).toContain(server.gitVersion);
  });

  it('deletes a pod only once its containers are gone, and leaves no sandbox in the runtime', async () => {
    const uid = (await getPod('hello')).metadata.uid;
    await kubectl(['delete', 'pod', 'hello', '--grace-period=2', '--wait=true'], env(), 40_000);
    const sandboxes = await containerd.cri.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': uid } });
    expect(sandboxes).toEqual([]);
    const containers = await containerd.cri.listContainers({ labelSelector: { 'io.kubernetes.pod.uid': uid } });
    expect(containers).toEqual([]);
  }, 60_000);
});
