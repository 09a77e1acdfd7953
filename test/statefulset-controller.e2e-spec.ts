import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`StatefulSet controller tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

interface PodView {
  name: string;
  uid: string;
  created: number;
  readySince: number;
  revision: string;
  hostname: string;
  subdomain: string;
  env: string[];
}

const seconds = (time: string | undefined) => (time ? Date.parse(time) : NaN);

describeWithRuntime('the statefulset controller with kubectl, on a node agent running busybox', () => {
  let cluster: NodeCluster;
  let controllers: ControllerManagerProcess;
  const env = () => cluster.env();
  const run = async (...args: string[]) => (await kubectl(args, env(), 30_000)).stdout;

  const webPods = async (): Promise<Map<string, PodView>> => {
    const list = JSON.parse(await run('get', 'pods', '-l', 'app=web', '-o', 'json'));
    const views = new Map<string, PodView>();
    for (const pod of list.items) {
      const ready = pod.status?.conditions?.find((c: { type: string }) => c.type === 'Ready');
      views.set(pod.metadata.name, {
        name: pod.metadata.name,
        uid: pod.metadata.uid,
        created: seconds(pod.metadata.creationTimestamp),
        readySince: ready?.status === 'True' ? seconds(ready.lastTransitionTime) : NaN,
        revision: pod.metadata.labels['controller-revision-hash'],
        hostname: pod.spec.hostname,
        subdomain: pod.spec.subdomain,
        env: (pod.spec.containers[0].env ?? []).map((e: { name: string; value: string }) => `${e.name}=${e.value}`),
      });
    }
    return views;
  };

  const statefulSet = (name: string, selector: Record<string, string>, labels: Record<string, string>) => ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      replicas: 3,
      serviceName: 'web',
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          // No scheduler runs here: the template names the node, as a pod may.
          nodeName: cluster.agent.nodeName,
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait'] }],
        },
      },
    },
  });

  beforeAll(async () => {
    cluster = await startNodeCluster();
    controllers = await startControllerManagerProcess(cluster.apiserver, [
      '--controllers=statefulset,endpoints,garbagecollector',
      '--concurrent-statefulset-syncs=2',
    ]);
  }, 120_000);

  afterAll(async () => {
    await controllers?.stop();
    await cluster?.stop();
  }, 60_000);

  it('starts web-0, web-1 and web-2 in order, each ready before the next, each with its stable hostname behind the headless Service', async () => {
    await cluster.apply(
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { clusterIP: 'None', selector: { app: 'web' }, ports: [{ name: 'x', port: 80 }] } },
      statefulSet('web', { app: 'web' }, { app: 'web' }),
    );
    const status = await run('rollout', 'status', 'statefulset/web', '--timeout=60s');
    expect(status).toContain('partitioned roll out complete: 3 new pods have been updated...');

    const pods = await webPods();
    expect([...pods.keys()].sort()).toEqual(['web-0', 'web-1', 'web-2']);
    const [web0, web1, web2] = ['web-0', 'web-1', 'web-2'].map((n) => pods.get(n)!);
    // Each pod was made only once the one before it ran and was ready (times in whole seconds).
    expect(web1.created).toBeGreaterThanOrEqual(web0.readySince);
    expect(web2.created).toBeGreaterThanOrEqual(web1.readySince);
    const events = JSON.parse(await run('get', 'events', '--field-selector=involvedObject.kind=StatefulSet,involvedObject.name=web', '-o', 'json'));
    expect(events.items.filter((e: { reason: string }) => e.reason === 'SuccessfulCreate').map((e: { message: string }) => e.message)).toEqual(
      expect.arrayContaining([
        'create Pod web-0 in StatefulSet web successful',
        'create Pod web-1 in StatefulSet web successful',
        'create Pod web-2 in StatefulSet web successful',
      ]),
    );

    for (const pod of [web0, web1, web2]) {
      expect(pod).toMatchObject({ hostname: pod.name, subdomain: 'web' });
      expect((await run('exec', pod.name, '--', 'hostname')).trim()).toBe(pod.name);
    }
    const labels = JSON.parse(await run('get', 'pod', 'web-1', '-o', 'jsonpath={.metadata.labels}'));
    expect(labels).toMatchObject({
      'statefulset.kubernetes.io/pod-name': 'web-1',
      'apps.kubernetes.io/pod-index': '1',
      'controller-revision-hash': web1.revision,
    });
    // The headless Service's Endpoints name each pod by its hostname: the records `web-0.web` resolves through.
    await eventually(
      async () => {
        const endpoints = JSON.parse(await run('get', 'endpoints', 'web', '-o', 'json'));
        const hostnames = (endpoints.subsets?.[0]?.addresses ?? []).map((a: { hostname?: string }) => a.hostname).sort();
        expect(hostnames).toEqual(['web-0', 'web-1', 'web-2']);
      },
      20_000,
      250,
    );
  }, 90_000);

  it('with partition 1 replaces web-2, then web-1 once web-2 is ready, and leaves web-0; rollout history lists both revisions', async () => {
    const before = await webPods();
    await run(
      'patch',
      'statefulset',
      'web',
      '--type=strategic',
      '-p',
      JSON.stringify({
        spec: {
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } },
          template: { spec: { containers: [{ name: 'main', env: [{ name: 'VERSION', value: '2' }] }] } },
        },
      }),
    );
    const status = await run('rollout', 'status', 'statefulset/web', '--timeout=60s');
    expect(status).toContain('partitioned roll out complete: 2 new pods have been updated...');
    const set = JSON.parse(await run('get', 'statefulset', 'web', '-o', 'json'));
    expect(set.status).toMatchObject({ replicas: 3, readyReplicas: 3, currentReplicas: 1, updatedReplicas: 2, observedGeneration: 2 });
    expect(set.status.updateRevision).not.toBe(set.status.currentRevision);

    const after = await webPods();
    const [web0, web1, web2] = ['web-0', 'web-1', 'web-2'].map((n) => after.get(n)!);
    expect(web0).toMatchObject({ uid: before.get('web-0')!.uid, revision: set.status.currentRevision, env: [] });
    for (const pod of [web1, web2]) {
      expect(pod.uid).not.toBe(before.get(pod.name)!.uid);
      expect(pod).toMatchObject({ revision: set.status.updateRevision, env: ['VERSION=2'], hostname: pod.name });
    }
    // web-1 went only once the new web-2 ran and was ready.
    expect(web1.created).toBeGreaterThanOrEqual(web2.readySince);

    const history = await run('rollout', 'history', 'statefulset/web');
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\s+1\s+<none>\s+2\s+<none>/);
    const revision2 = await run('rollout', 'history', 'statefulset/web', '--revision=2');
    expect(revision2).toContain('VERSION:\t2');
  }, 90_000);

  it('rollout undo puts the template of the revision before back, and the partition rolls web-2 and web-1 to it', async () => {
    const set = JSON.parse(await run('get', 'statefulset', 'web', '-o', 'json'));
    expect(await run('rollout', 'undo', 'statefulset/web')).toContain('statefulset.apps/web rolled back');
    const template = JSON.parse(await run('get', 'statefulset', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0]}'));
    expect(template.env).toBeUndefined();
    await run('rollout', 'status', 'statefulset/web', '--timeout=60s');
    await eventually(
      async () => {
        const pods = await webPods();
        expect([...pods.values()].map((p) => [p.name, p.revision, p.env.length])).toEqual([
          ['web-0', set.status.currentRevision, 0],
          ['web-1', set.status.currentRevision, 0],
          ['web-2', set.status.currentRevision, 0],
        ]);
      },
      60_000,
      500,
    );
    // The first revision is the newest again; none was made for it.
    const revisions = JSON.parse(await run('get', 'controllerrevisions', '-l', 'app=web', '-o', 'json'));
    expect(revisions.items.map((r: { metadata: { name: string }; revision: number }) => [r.metadata.name, r.revision]).sort()).toEqual(
      [
        [set.status.currentRevision, 3],
        [set.status.updateRevision, 2],
      ].sort(),
    );
  }, 90_000);

  it('refuses a StatefulSet whose selector does not match its template with 422', async () => {
    const file = join(cluster.apiserver.dir, 'mismatched-statefulset.yaml');
    await writeFile(file, stringify(statefulSet('mismatched', { app: 'one' }, { app: 'other' })));
    const result = await runKubectl(['create', '-f', file, '-v=6'], env());
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/POST \S+\/statefulsets\S* 422 Unprocessable Entity/);
    expect(result.stderr).toContain('The StatefulSet "mismatched" is invalid');
    expect(result.stderr).toContain('`selector` does not match template `labels`');
  }, 30_000);
});
