import 'reflect-metadata';
import type { Deployment, HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition, Pod } from '@svc/api';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { LabelQuery } from '@svc/machinery';
import { eventually } from '@svc/runtime/testing';
import type { ControllerDescriptor } from '../controller-descriptor';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { HorizontalPodAutoscalerOptions } from './horizontal-pod-autoscaler-options';
import { PodMetricsSource, type PodMetrics } from './pod-metrics-source';
import { horizontalPodAutoscalerController } from '.';

// The controller against a real API server (scale subresources, status, events real). The metrics API
// is the one external edge: metrics.k8s.io is served by aggregation to a metrics server, which this
// environment does not run, so the test fills the controller's PodMetricsSource itself. Time for the
// windows and periods comes from a clock the test moves; syncs run each second of real time.

/** CPU usage in thousandths by namespace/pod, as a metrics server would report it. */
class TestPodMetrics extends PodMetricsSource {
  readonly usage = new Map<string, number>();
  calls = 0;

  listPodMetrics(namespace: string, labelSelector: string): Promise<PodMetrics[]> {
    this.calls++;
    const selector = LabelQuery.parse(labelSelector);
    return env.client.pods.list({ namespace }).then((pods) =>
      pods.items
        .filter((p) => selector.matches(p.metadata?.labels) && this.usage.has(`${namespace}/${p.metadata?.name}`))
        .map((p) => ({
          metadata: { name: p.metadata!.name!, namespace },
          timestamp: new Date(clockMs).toISOString(),
          window: '30s',
          containers: [{ name: 'c', usage: { cpu: `${this.usage.get(`${namespace}/${p.metadata!.name}`)}m`, memory: '10Mi' } }],
        })),
    );
  }
}

let env: TestEnvironment;
let running: RunningControllers;
let clockMs = Date.parse('2026-01-01T12:00:00Z');
const metrics = new TestPodMetrics();
let namespaceCount = 0;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

beforeAll(async () => {
  env = await startTestEnvironment();
  const controller: ControllerDescriptor = {
    ...horizontalPodAutoscalerController,
    options: (flags) => [HorizontalPodAutoscalerOptions.fromFlags(flags, { metricsSource: metrics, now: () => clockMs })],
  };
  running = await startControllers(env, [controller], ['--horizontal-pod-autoscaler-sync-period=1s']);
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

async function freshNamespace(): Promise<string> {
  const name = `hpa-${++namespaceCount}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

async function createDeployment(namespace: string, replicas: number): Promise<Deployment> {
  return env.client.deployments.create({
    metadata: { name: 'web', namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  });
}

/** A running, ready pod (started long ago) requesting 100m CPU, as a node agent would report it, using `cpu` thousandths. */
async function runningPod(namespace: string, name: string, cpu: number, labels: Record<string, string> = { app: 'web' }): Promise<Pod> {
  await env.client.pods.create({
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '100m' } } }] },
  });
  metrics.usage.set(`${namespace}/${name}`, cpu);
  const longAgo = iso(clockMs - 3_600_000);
  return env.client.pods.patchStatus(
    name,
    { status: { phase: 'Running', startTime: longAgo, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: longAgo }] } },
    'merge',
    { namespace },
  );
}

async function createAutoscaler(namespace: string, spec: Partial<NonNullable<HorizontalPodAutoscaler['spec']>> = {}): Promise<HorizontalPodAutoscaler> {
  return env.client.horizontalPodAutoscalers.create({
    metadata: { name: 'web', namespace },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
      ...spec,
    },
  });
}

const autoscaler = (namespace: string) => env.client.horizontalPodAutoscalers.get('web', { namespace });
const condition = (hpa: HorizontalPodAutoscaler, type: string): HorizontalPodAutoscalerCondition | undefined =>
  hpa.status?.conditions?.find((c) => c.type === type);
const replicasOf = async (namespace: string) => (await env.client.deployments.get('web', { namespace })).spec?.replicas;

async function events(namespace: string, reason: string): Promise<string[]> {
  const list = await env.client.events.list({ namespace });
  return list.items.filter((e) => e.reason === reason && e.source?.component === 'horizontal-pod-autoscaler').map((e) => e.message ?? '');
}

describe('the horizontal-pod-autoscaler controller', () => {
  it('scales a Deployment up through its scale subresource on CPU utilization, with status, conditions and event', async () => {
    const ns = await freshNamespace();
    await createDeployment(ns, 2);
    await runningPod(ns, 'a', 100);
    await runningPod(ns, 'b', 100);
    await createAutoscaler(ns);

    // 100% of a 50% target on 2 pods: 4.
    await eventually(async () => expect(await replicasOf(ns)).toBe(4), 10_000);
    const hpa = await eventually(async () => {
      const read = await autoscaler(ns);
      expect(read.status).toMatchObject({ currentReplicas: 2, desiredReplicas: 4 });
      return read;
    }, 10_000);
    expect(hpa.status?.lastScaleTime).toBe(iso(clockMs));
    expect(hpa.status?.currentMetrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 100, averageValue: '100m' } } }]);
    expect(condition(hpa, 'AbleToScale')).toMatchObject({
      status: 'True',
      reason: 'SucceededRescale',
      message: 'the HPA controller was able to update the target scale to 4',
    });
    expect(condition(hpa, 'ScalingActive')).toMatchObject({
      status: 'True',
      reason: 'ValidMetricFound',
      message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)',
    });
    expect(condition(hpa, 'ScalingLimited')).toMatchObject({ status: 'False', reason: 'DesiredWithinRange' });
    await eventually(async () =>
      expect(await events(ns, 'SuccessfulRescale')).toEqual(['New size: 4; reason: cpu resource utilization (percentage of request) above target']),
    );

    // The next syncs see 4 replicas asked for and the same 2 pods' usage: nothing more to do.
    const calls = metrics.calls;
    await eventually(() => expect(metrics.calls).toBeGreaterThan(calls + 1), 5_000);
    expect(await replicasOf(ns)).toBe(4);
    expect((await autoscaler(ns)).status).toMatchObject({ currentReplicas: 4, desiredReplicas: 4, lastScaleTime: iso(clockMs) });
  }, 30_000);

  it('scales down only once the stabilization window has passed, on the clock it is given', async () => {
    const ns = await freshNamespace();
    await createDeployment(ns, 4);
    for (const name of ['a', 'b', 'c', 'd']) await runningPod(ns, name, 50);
    await createAutoscaler(ns, { behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } });
    await eventually(async () => expect(condition(await autoscaler(ns), 'ScalingActive')).toMatchObject({ status: 'True' }), 10_000);

    // The load stops: 10% of 50% wants 1, but the window holds the 4 recommended within the last 60 s.
    for (const name of ['a', 'b', 'c', 'd']) metrics.usage.set(`${ns}/${name}`, 10);
    await eventually(
      async () =>
        expect(condition(await autoscaler(ns), 'AbleToScale')).toMatchObject({
          reason: 'ScaleDownStabilized',
          message: 'recent recommendations were higher than current one, applying the highest recent recommendation',
        }),
      10_000,
    );
    expect(await replicasOf(ns)).toBe(4);

    clockMs += 61_000;
    await eventually(async () => expect(await replicasOf(ns)).toBe(1), 10_000);
    await eventually(async () => expect(await events(ns, 'SuccessfulRescale')).toContain('New size: 1; reason: All metrics below target'));
  }, 30_000);

  it('scales a custom resource through its scale subresource and status.selector', async () => {
    const ns = await freshNamespace();
    await env.client.customResourceDefinitions.create({
      metadata: { name: 'workers.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'workers', singular: 'worker', kind: 'Worker', listKind: 'WorkerList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            subresources: {
              status: {},
              scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
            },
          },
        ],
      },
    });
    const workers = env.client.dynamic({ group: 'example.com', version: 'v1', resource: 'workers', namespaced: true, kind: 'Worker' });
    await eventually(async () => {
      await workers.create({ apiVersion: 'example.com/v1', kind: 'Worker', metadata: { name: 'queue', namespace: ns }, spec: { replicas: 1 } });
    }, 10_000);
    await workers.patchStatus('queue', { status: { replicas: 1, selector: 'app=queue' } }, 'merge', { namespace: ns });
    await runningPod(ns, 'q', 200, { app: 'queue' });
    await env.client.horizontalPodAutoscalers.create({
      metadata: { name: 'queue', namespace: ns },
      spec: {
        scaleTargetRef: { apiVersion: 'example.com/v1', kind: 'Worker', name: 'queue' },
        maxReplicas: 3,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '100m' } } }],
      },
    });
    // 200m against a 100m average target: 2; then ScalingLimited would say if max were less.
    await eventually(async () => expect((await workers.get('queue', { namespace: ns })).spec).toEqual({ replicas: 2 }), 10_000);
    const hpa = await env.client.horizontalPodAutoscalers.get('queue', { namespace: ns });
    expect(hpa.status?.currentMetrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '200m' } } }]);
  }, 30_000);

  it('reports a target without a scale subresource, and metrics it cannot read, as Kubernetes does, never crashing', async () => {
    const ns = await freshNamespace();
    await env.client.configMaps.create({ metadata: { name: 'settings', namespace: ns }, data: {} });
    await env.client.horizontalPodAutoscalers.create({
      metadata: { name: 'settings', namespace: ns },
      spec: { scaleTargetRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings' }, maxReplicas: 3 },
    });
    const noScale = await eventually(async () => {
      const read = await env.client.horizontalPodAutoscalers.get('settings', { namespace: ns });
      expect(condition(read, 'AbleToScale')).toMatchObject({ status: 'False', reason: 'FailedGetScale' });
      return read;
    }, 10_000);
    expect(condition(noScale, 'AbleToScale')?.message).toMatch(/^the HPA controller was unable to get the target's current scale: /);
    await eventually(async () => expect((await events(ns, 'FailedGetScale')).length).toBeGreaterThan(0));

    await env.client.horizontalPodAutoscalers.create({
      metadata: { name: 'nowhere', namespace: ns },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Gadget', name: 'x' }, maxReplicas: 3 },
    });
    await eventually(
      async () =>
        expect(condition(await env.client.horizontalPodAutoscalers.get('nowhere', { namespace: ns }), 'AbleToScale')).toMatchObject({
          status: 'False',
          reason: 'FailedGetScale',
          message: 'the HPA controller was unable to get the target\'s current scale: no matches for kind "Gadget" in group "apps"',
        }),
      10_000,
    );

    // A Pods metric needs the custom metrics API, which is not served: ScalingActive False with Kubernetes' reason.
    await createDeployment(ns, 1);
    await runningPod(ns, 'a', 10);
    await createAutoscaler(ns, {
      metrics: [{ type: 'Pods', pods: { metric: { name: 'requests_per_second' }, target: { type: 'AverageValue', averageValue: '10' } } }],
    });
    const pods = await eventually(async () => {
      const read = await autoscaler(ns);
      expect(condition(read, 'ScalingActive')).toMatchObject({ status: 'False', reason: 'FailedGetPodsMetric' });
      return read;
    }, 10_000);
    expect(condition(pods, 'ScalingActive')?.message).toContain('custom metrics API (custom.metrics.k8s.io) is not served');
    await eventually(async () => expect((await events(ns, 'FailedComputeMetricsReplicas')).length).toBeGreaterThan(0));
    expect(await replicasOf(ns)).toBe(1);
  }, 30_000);
});
