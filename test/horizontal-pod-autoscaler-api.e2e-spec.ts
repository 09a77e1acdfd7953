import { request as httpsRequest } from 'node:https';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerV1, Status } from '@svc/api';
import { decodeEnvelope, decodeProtobufObject } from '@svc/machinery';
import { ApiClient } from './support/api-client';
import { createNamespace, expectStatus, MERGE_PATCH } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { runKubectl } from './support/kubectl-run';

// HorizontalPodAutoscaler on the real svc-apiserver process, as kubectl 1.32 and a raw client meet it:
// autoscaling/v2 stored, autoscaling/v1 served from the same objects, kubectl autoscale, get, explain.
// No controller runs here (the controller's own spec drives it against an API server).

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'hpa-e2e';
const v2 = `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`;
const v1 = `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`;

beforeAll(async () => {
  server = await startApiServerProcess();
  client = new ApiClient(server.url, server.ca);
  await createNamespace(client, ns);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

async function kubectl(...args: string[]): Promise<string> {
  const res = await runKubectl(['-n', ns, ...args], server.kubectlEnv);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${res.code}:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

function protobufGet(path: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${server.url}${path}`, { headers: { Accept: PROTOBUF }, ca: server.ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const causes = (status: Status) => (status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36', resources: { requests: { cpu: '100m' } } }] } },
  },
};

describe('HorizontalPodAutoscaler through kubectl', () => {
  it('kubectl autoscale makes one (through autoscaling/v1), and get hpa prints its columns with the cpu target', async () => {
    expectStatus(await client.post(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment), 201);
    expect(await kubectl('autoscale', 'deployment', 'web', '--cpu-percent=50', '--min=1', '--max=5')).toContain(
      'horizontalpodautoscaler.autoscaling/web autoscaled',
    );
    const stored = await client.get<HorizontalPodAutoscaler>(`${v2}/web`);
    expect(stored.body.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
    });
    expect(stored.body.status).toEqual({ desiredReplicas: 0 });

    const table = await kubectl('get', 'hpa');
    expect(table.split('\n')[0].split(/\s+/)).toEqual(['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    expect(table).toMatch(/^web\s+Deployment\/web\s+cpu: <unknown>\/50%\s+1\s+5\s+0\s+\S+$/m);

    // What the controller writes shows as `current/target`.
    const status = {
      status: {
        currentReplicas: 2,
        desiredReplicas: 2,
        currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 30, averageValue: '30m' } } }],
      },
    };
    expectStatus(await client.patch(`${v2}/web/status`, MERGE_PATCH, status), 200);
    expect(await kubectl('get', 'hpa', 'web')).toMatch(/^web\s+Deployment\/web\s+cpu: 30%\/50%\s+1\s+5\s+2\s+\S+$/m);
    const described = await kubectl('describe', 'hpa', 'web');
    expect(described).toMatch(/Reference:\s+Deployment\/web/);
    expect(described).toMatch(/\( current \/ target \)/);
  });

  it('explains the kind and its fields', async () => {
    expect(await kubectl('explain', 'hpa.spec.behavior.scaleDown')).toContain('stabilizationWindowSeconds');
    expect(await kubectl('explain', 'horizontalpodautoscaler.spec.metrics.resource.target')).toContain('averageUtilization');
  });
});

describe('autoscaling/v1 and autoscaling/v2 of the same objects', () => {
  it('serves a v2 autoscaler through v1 with its cpu target, and keeps what only v2 has in the annotations', async () => {
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'both' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 4,
        metrics: [
          { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 30 } },
      },
    };
    const made = await client.post<HorizontalPodAutoscaler>(v2, hpa);
    expectStatus(made, 201);
    // Kubernetes' defaults: minReplicas 1, every nil rule of a behavior given filled in, scale down's window left to the controller's flag.
    expect(made.body.spec?.minReplicas).toBe(1);
    expect(made.body.spec?.behavior).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: { stabilizationWindowSeconds: 30, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });

    const asV1 = (await client.get<HorizontalPodAutoscalerV1>(`${v1}/both`)).body;
    expect(asV1.apiVersion).toBe('autoscaling/v1');
    expect(asV1.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 4,
      targetCPUUtilizationPercentage: 60,
    });
    const annotations = asV1.metadata?.annotations ?? {};
    expect(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/metrics'])).toEqual([
      { type: 'Resource', resource: { name: 'memory', targetAverageValue: '100Mi' } },
    ]);
    expect(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/behavior'])).toMatchObject({
      ScaleDown: { StabilizationWindowSeconds: 30, SelectPolicy: 'Max' },
    });

    // A v1 client's round trip (a label added, the annotations sent back) loses nothing of v2's.
    const edited = { ...asV1, metadata: { ...asV1.metadata, labels: { team: 'a' } } };
    expectStatus(await client.put(`${v1}/both`, edited), 200);
    const after = (await client.get<HorizontalPodAutoscaler>(`${v2}/both`)).body;
    expect(after.metadata?.labels).toEqual({ team: 'a' });
    expect(after.metadata?.annotations).toBeUndefined();
    expect(after.spec?.metrics).toEqual(made.body.spec?.metrics);
    expect(after.spec?.behavior).toEqual(made.body.spec?.behavior);
  });

  it('stores a v1 autoscaler at v2: its cpu target a Utilization metric, 80% when it names none', async () => {
    const v1Hpa = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3, ...spec },
    });
    const made = await client.post<HorizontalPodAutoscalerV1>(v1, v1Hpa('old', { targetCPUUtilizationPercentage: 70 }));
    expectStatus(made, 201);
    expect(made.body).toMatchObject({
      apiVersion: 'autoscaling/v1',
      spec: { minReplicas: 1, targetCPUUtilizationPercentage: 70 },
      status: { currentReplicas: 0, desiredReplicas: 0 },
    });
    const stored = (await client.get<HorizontalPodAutoscaler>(`${v2}/old`)).body;
    expect(stored.spec?.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }]);

    expectStatus(await client.post(v1, v1Hpa('plain', {})), 201);
    expect((await client.get<HorizontalPodAutoscaler>(`${v2}/plain`)).body.spec?.metrics?.[0].resource?.target).toEqual({
      type: 'Utilization',
      averageUtilization: 80,
    });
    // Listed through either version, the same objects.
    const names = async (path: string) =>
      (await client.get<{ items: Array<{ metadata: { name: string } }> }>(path)).body.items.map((i) => i.metadata.name).sort();
    expect(await names(v1)).toEqual(await names(v2));
  });

  it('answers protobuf for both versions', async () => {
    for (const [path, apiVersion] of [
      [`${v2}/both`, 'autoscaling/v2'],
      [`${v1}/both`, 'autoscaling/v1'],
    ]) {
      const res = await protobufGet(path);
      expect(res.status).toBe(200);
      const envelope = decodeEnvelope(res.body);
      expect([envelope.apiVersion, envelope.kind]).toEqual([apiVersion, 'HorizontalPodAutoscaler']);
      expect(decodeProtobufObject(envelope)).toMatchObject({ metadata: { name: 'both' }, spec: { maxReplicas: 4 } });
    }
  });
});

describe('bad autoscalers', () => {
  const base = { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3 };
  const post = (spec: Record<string, unknown>, path = v2, annotations?: Record<string, string>) =>
    client.post<Status>(path, { metadata: { name: 'bad', ...(annotations ? { annotations } : {}) }, spec: { ...base, ...spec } });

  it("are refused with Kubernetes' messages", async () => {
    const res = await post({
      minReplicas: 0,
      maxReplicas: 0,
      scaleTargetRef: { kind: '', name: 'a/b' },
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } } },
        { type: 'Pods', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      ],
      behavior: { scaleUp: { stabilizationWindowSeconds: 4000, selectPolicy: 'Most', policies: [{ type: 'Pods', value: 0, periodSeconds: 2000 }] } },
    });
    expect(res.status).toBe(422);
    expect(causes(res.body)).toEqual([
      'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
      'spec.maxReplicas: Invalid value: 0: must be greater than 0',
      'spec.scaleTargetRef.kind: Required value',
      'spec.scaleTargetRef.name: Invalid value: "a/b": may not contain \'/\'',
      'spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0',
      'spec.metrics[1].pods: Required value: must populate information for the given metric source',
      'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas',
      'spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600',
      'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Most": supported values: "Disabled", "Max", "Min"',
      'spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero',
      'spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800',
    ]);
  });

  it('through v1, a malformed annotation is a 422 naming it, never a 5xx', async () => {
    const res = await post({}, v1, { 'autoscaling.alpha.kubernetes.io/metrics': '[{not json' });
    expect(res.status).toBe(422);
    expect(causes(res.body)[0]).toMatch(/^metadata\.annotations\[autoscaling\.alpha\.kubernetes\.io\/metrics\]: Invalid value/);
    const tooLow = await post({ minReplicas: 5 }, v1);
    expect(causes(tooLow.body)).toEqual(['spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`']);
  });

  it('may name a kind without a scale subresource: the API takes it, the controller reports it', async () => {
    const res = await post({ scaleTargetRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings' } });
    expect(res.status).toBe(201);
  });
});
