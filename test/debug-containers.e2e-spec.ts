import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

// Debugging pods (`kubectl debug`: ephemeral containers, pod copies, node debugging) and RuntimeClasses
// on one node agent over a real containerd that knows a second runc handler.

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Debug container and runtime class tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

/** The handler the test's containerd knows beside runc, and the class that names it. */
const SECOND_HANDLER = 'runc-second';

interface ContainerStatus {
  name: string;
  restartCount: number;
  state: { running?: unknown; terminated?: { exitCode: number }; waiting?: { reason: string } };
}

describeWithRuntime('debugging pods and runtime classes on a node agent', () => {
  let cluster: NodeCluster;
  const env = () => cluster.env();

  beforeAll(async () => {
    cluster = await startNodeCluster({ containerd: { runtimeHandlers: [SECOND_HANDLER] } });
    await cluster.runPod('mypod', [], { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] });
    await eventually(async () => expect((await cluster.getPod('mypod')).status.phase).toBe('Running'), 30_000, 200);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  const debuggers = async (pod: string): Promise<ContainerStatus[]> => (await cluster.getPod(pod)).status.ephemeralContainerStatuses ?? [];

  it("kubectl debug -it --target shares the target's processes: ps shows the app's sleep; the debugger runs once, never again", async () => {
    const run = await runKubectl(['debug', '-it', 'mypod', '--image=busybox:1.36', '--target=app', '--', 'ps'], env(), 60_000);
    expect(run.stderr).not.toContain('disabled');
    expect(run.code).toBe(0);
    // The target's process, seen from the debug container: the two share one process namespace.
    expect(run.stdout).toMatch(/sleep 3600/);
    const pod = await cluster.getPod('mypod');
    const [container] = pod.spec.ephemeralContainers as Array<{ name: string; targetContainerName: string }>;
    expect(container.targetContainerName).toBe('app');
    await eventually(
      async () =>
        expect(await debuggers('mypod')).toEqual([
          expect.objectContaining({ name: container.name, restartCount: 0, state: { terminated: expect.objectContaining({ exitCode: 0 }) } }),
        ]),
      30_000,
      200,
    );
    // Exited, and not started again: the runtime holds that one container of its name.
    const runtime = await cluster.containerd.cri.listContainers({
      labelSelector: { 'io.kubernetes.pod.uid': pod.metadata.uid, 'io.kubernetes.container.name': container.name },
    });
    expect(runtime).toHaveLength(1);
    // Its log stays readable by name.
    expect((await kubectl(['logs', 'mypod', '-c', container.name], env())).stdout).toMatch(/sleep 3600/);
  }, 90_000);

  it("runs a long-lived debug container that kubectl exec reaches by name, in the target's processes", async () => {
    await kubectl(['debug', 'mypod', '--image=busybox:1.36', '--target=app', '--container=sleeper', '--', 'sleep', '3601'], env());
    await eventually(
      async () => expect((await debuggers('mypod')).find((s) => s.name === 'sleeper')).toMatchObject({ state: { running: expect.anything() } }),
      30_000,
      200,
    );
    const ps = (await kubectl(['exec', 'mypod', '-c', 'sleeper', '--', 'ps'], env())).stdout;
    expect(ps).toMatch(/sleep 3600/);
    expect(ps).toMatch(/sleep 3601/);
    // The pod stays Running and Ready: a debug container counts for neither.
    const pod = await cluster.getPod('mypod');
    expect(pod.status.phase).toBe('Running');
    expect(pod.status.conditions.find((c: { type: string }) => c.type === 'Ready').status).toBe('True');
  }, 60_000);

  it("refuses a change of an existing ephemeral container in Kubernetes' words", async () => {
    const name = ((await cluster.getPod('mypod')).spec.ephemeralContainers as Array<{ name: string }>)[0].name;
    const patch = JSON.stringify({ spec: { ephemeralContainers: [{ name, image: 'busybox:1.36', command: ['true'] }] } });
    const refused = await runKubectl(['patch', 'pod', 'mypod', '--subresource=ephemeralcontainers', '--type=strategic', '-p', patch], env());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`spec.ephemeralContainers[${name}]: Forbidden: existing ephemeral containers "${name}" may not be changed`);
  }, 30_000);

  it('kubectl debug --copy-to runs a copy of the pod with a debug container beside its own, sharing processes', async () => {
    await kubectl(
      ['debug', 'mypod', '--copy-to=copy', '--image=busybox:1.36', '--share-processes', '--same-node', '--container=debugger', '--', 'sleep', '3600'],
      env(),
    );
    await eventually(async () => expect((await cluster.getPod('copy')).status.phase).toBe('Running'), 30_000, 200);
    const copy = await cluster.getPod('copy');
    expect(copy.spec.shareProcessNamespace).toBe(true);
    expect((copy.spec.containers as Array<{ name: string }>).map((c) => c.name)).toEqual(['app', 'debugger']);
    // One process namespace for the pod: the debugger sees the app's sleep beside its own.
    const ps = (await kubectl(['exec', 'copy', '-c', 'debugger', '--', 'ps'], env())).stdout;
    expect(ps.match(/sleep 3600/g)?.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it("kubectl debug node/<node> runs a pod in the node's namespaces with the node's root at /host", async () => {
    const node = cluster.agent.nodeName;
    const run = await runKubectl(
      ['debug', `node/${node}`, '-it', '--image=busybox:1.36', '--', 'sh', '-c', 'ls /host/proc/1 >/dev/null && echo host root mounted'],
      env(),
      60_000,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('host root mounted');
    const pods = JSON.parse((await kubectl(['get', 'pods', '-o', 'json'], env())).stdout).items as Array<{
      metadata: { name: string };
      spec: Record<string, unknown>;
    }>;
    const debugPod = pods.find((p) => p.metadata.name.startsWith(`node-debugger-${node}-`));
    expect(debugPod?.spec).toMatchObject({ hostPID: true, hostNetwork: true, nodeName: node });
  }, 90_000);

  it('serves events.k8s.io/v1 Events on the core/v1 storage: written through one, read through the other, and kubectl events shows them', async () => {
    await cluster.apply({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'checked', namespace: 'default' },
      eventTime: '2026-12-07T10:00:00.000000Z',
      reportingController: 'example.com/checker',
      reportingInstance: 'checker-1',
      action: 'Checking',
      reason: 'Checked',
      note: 'mypod looks fine',
      type: 'Normal',
      regarding: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'mypod' },
    });
    const core = JSON.parse((await kubectl(['get', 'events.v1.', 'checked', '-o', 'json'], env())).stdout);
    expect(core).toMatchObject({
      apiVersion: 'v1',
      message: 'mypod looks fine',
      involvedObject: { kind: 'Pod', name: 'mypod' },
      reportingComponent: 'example.com/checker',
    });
    // The agent's own core/v1 events, read back through events.k8s.io.
    const listed = JSON.parse((await kubectl(['get', 'events.v1.events.k8s.io', '-o', 'json'], env())).stdout).items as Array<Record<string, any>>;
    const started = listed.find((e) => e.reason === 'Started' && e.regarding?.name === 'mypod');
    expect(started).toMatchObject({ apiVersion: 'events.k8s.io/v1', deprecatedSource: { component: expect.any(String) } });
    expect(started?.note).toMatch(/^Started container /);
    expect((await kubectl(['events', '--for=pod/mypod'], env())).stdout).toMatch(/Checked\s+Pod\/mypod\s+mypod looks fine/);
  }, 30_000);

  it('runs a pod of a RuntimeClass on its handler, and refuses a pod naming a class that does not exist', async () => {
    await cluster.apply({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'second' }, handler: SECOND_HANDLER });
    expect((await kubectl(['get', 'runtimeclass'], env())).stdout).toMatch(/^NAME\s+HANDLER\s+AGE\nsecond\s+runc-second\s+/);
    expect((await kubectl(['explain', 'runtimeclass.handler'], env())).stdout).toMatch(/KIND:\s+RuntimeClass[\s\S]*FIELD:\s+handler <string>/);
    await cluster.runPod('on-second', ['sleep', '3600'], { runtimeClassName: 'second' });
    await eventually(async () => expect((await cluster.getPod('on-second')).status.phase).toBe('Running'), 30_000, 200);
    const uid = (await cluster.getPod('on-second')).metadata.uid as string;
    const [sandbox] = await cluster.containerd.cri.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': uid } });
    expect((await cluster.containerd.cri.podSandboxStatus(sandbox.id)).runtimeHandler).toBe(SECOND_HANDLER);
    const refused = await runKubectl(['run', 'nowhere', '--image=busybox:1.36', '--overrides={"spec":{"runtimeClassName":"missing"}}'], env());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('pods "nowhere" is forbidden: pod rejected: RuntimeClass "missing" not found');
  }, 60_000);
});
