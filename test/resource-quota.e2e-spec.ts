import type { LimitRange, Pod, ResourceQuota, Status } from '@svc/api';
import { ApiClient } from './support/api-client';
import { createNamespace, eventually, expectFailure, expectStatus } from './support/api-fixtures';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl as kubectlOrFail } from './support/kubectl-run';

// ResourceQuota and LimitRange against the real svc-apiserver process (the ResourceQuota and
// LimitRanger admission plugins are on by default) and the real controller manager's quota controller.

function pod(name: string, resources?: Record<string, unknown>): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'app', image: 'busybox:1.36', ...(resources ? { resources } : {}) }] },
  };
}

describe('ResourceQuota and LimitRange', () => {
  let server: ApiServerProcess;
  let manager: ControllerManagerProcess;
  let client: ApiClient;

  beforeAll(async () => {
    server = await startApiServerProcess();
    // Pods need their namespace's default ServiceAccount; the quota controller keeps the quotas' status.
    manager = await startControllerManagerProcess(server, ['--controllers=resourcequota,serviceaccount', '--concurrent-resource-quota-syncs=2']);
    client = new ApiClient(server.url, server.ca);
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await manager?.stop();
    await server?.stop();
  });

  async function kubectl(...args: string[]): Promise<string> {
    return (await kubectlOrFail(args, server.kubectlEnv)).stdout;
  }

  /** A namespace whose default ServiceAccount exists (pods are refused without it). */
  async function namespace(name: string): Promise<void> {
    await createNamespace(client, name);
    await eventually(async () => expectStatus(await client.get(`/api/v1/namespaces/${name}/serviceaccounts/default`), 200));
  }

  async function quotaUsed(ns: string, name: string): Promise<Record<string, string | number> | undefined> {
    const res = await client.get<ResourceQuota>(`/api/v1/namespaces/${ns}/resourcequotas/${name}`);
    expectStatus(res, 200);
    return res.body.status?.used;
  }

  it('kubectl create quota: the third pod of a quota of 2 is refused with Kubernetes’ message, and deletes free the quota', async () => {
    const ns = 'quota-pods';
    await namespace(ns);
    await kubectl('create', 'quota', 'two-pods', '--hard=pods=2', '-n', ns);
    await eventually(async () => expect(await quotaUsed(ns, 'two-pods')).toEqual({ pods: '0' }));

    for (const name of ['a', 'b']) expectStatus(await client.post(`/api/v1/namespaces/${ns}/pods`, pod(name)), 201);
    const third = await client.post<Status>(`/api/v1/namespaces/${ns}/pods`, pod('c'));
    const status = expectFailure(third, 403, 'Forbidden');
    expect(status.message).toBe('pods "c" is forbidden: exceeded quota: two-pods, requested: pods=1, used: pods=2, limited: pods=2');
    expect(await quotaUsed(ns, 'two-pods')).toEqual({ pods: '2' });

    const table = await kubectl('get', 'quota', '-n', ns);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+AGE\s+REQUEST\s+LIMIT$/);
    expect(table).toMatch(/two-pods\s+\S+\s+pods: 2\/2/);
    const described = await kubectl('describe', 'quota', 'two-pods', '-n', ns);
    expect(described).toMatch(/Resource\s+Used\s+Hard/);
    expect(described).toMatch(/pods\s+2\s+2/);

    // The controller recalculates on the delete, as Kubernetes' replenishment does.
    expectStatus(await client.delete(`/api/v1/namespaces/${ns}/pods/a`, { gracePeriodSeconds: 0 }), 200);
    await eventually(async () => expect(await quotaUsed(ns, 'two-pods')).toEqual({ pods: '1' }));
    expectStatus(await client.post(`/api/v1/namespaces/${ns}/pods`, pod('c')), 201);
  }, 60_000);

  it('admits exactly 5 of 20 racing creates against a quota of 5', async () => {
    const ns = 'quota-race';
    await namespace(ns);
    await kubectl('create', 'quota', 'five', '--hard=pods=5,count/configmaps=50', '-n', ns);
    await eventually(async () => expect(await quotaUsed(ns, 'five')).toEqual({ pods: '0', 'count/configmaps': '0' }));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => client.post(`/api/v1/namespaces/${ns}/pods`, pod(`racer-${i}`))));
    const codes = answers.map((a) => a.status);
    expect(codes.filter((c) => c === 201)).toHaveLength(5);
    expect(codes.filter((c) => c === 403)).toHaveLength(15);
    const pods = await client.get<{ items: Pod[] }>(`/api/v1/namespaces/${ns}/pods`);
    expect(pods.body.items).toHaveLength(5);
    expect((await quotaUsed(ns, 'five'))?.pods).toBe('5');
  }, 60_000);

  it('refuses a pod that does not state what a compute quota counts', async () => {
    const ns = 'quota-compute';
    await namespace(ns);
    await kubectl('create', 'quota', 'compute', '--hard=requests.cpu=1,limits.cpu=2,limits.memory=1Gi', '-n', ns);
    await eventually(async () => expect(Object.keys((await quotaUsed(ns, 'compute')) ?? {})).toHaveLength(3));
    const bare = await client.post<Status>(`/api/v1/namespaces/${ns}/pods`, pod('bare'));
    expect(expectFailure(bare, 403, 'Forbidden').message).toBe(
      'pods "bare" is forbidden: failed quota: compute: must specify limits.cpu for: app; limits.memory for: app; requests.cpu for: app',
    );
    const sized = pod('sized', { requests: { cpu: '600m' }, limits: { cpu: '1', memory: '512Mi' } });
    expectStatus(await client.post(`/api/v1/namespaces/${ns}/pods`, sized), 201);
    expect(await quotaUsed(ns, 'compute')).toEqual({ 'requests.cpu': '600m', 'limits.cpu': '1', 'limits.memory': '512Mi' });
    const big = await client.post<Status>(`/api/v1/namespaces/${ns}/pods`, { ...sized, metadata: { name: 'big' } });
    expect(expectFailure(big, 403, 'Forbidden').message).toBe(
      'pods "big" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1',
    );
  }, 60_000);

  it('a LimitRange gives a pod without resources its defaults, and refuses one below its minimum', async () => {
    const ns = 'limits';
    await namespace(ns);
    const range: LimitRange = {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'defaults' },
      spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '200m' }, min: { cpu: '100m' } }] },
    };
    const created = await client.post<LimitRange>(`/api/v1/namespaces/${ns}/limitranges`, range);
    expectStatus(created, 201);
    // Kubernetes' defaulting: the default request of memory is its default limit.
    expect(created.body.spec?.limits[0].defaultRequest).toEqual({ cpu: '200m', memory: '256Mi' });

    const plain = await client.post<Pod>(`/api/v1/namespaces/${ns}/pods`, pod('plain'));
    expectStatus(plain, 201);
    expect(plain.body.spec?.containers[0].resources).toEqual({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '200m', memory: '256Mi' } });
    expect(plain.body.metadata?.annotations?.['kubernetes.io/limit-ranger']).toBe(
      'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app',
    );

    const small = await client.post<Status>(`/api/v1/namespaces/${ns}/pods`, pod('small', { requests: { cpu: '50m' } }));
    expect(expectFailure(small, 403, 'Forbidden').message).toBe('pods "small" is forbidden: minimum cpu usage per Container is 100m, but request is 50m');

    const described = await kubectl('describe', 'limitrange', 'defaults', '-n', ns);
    expect(described).toMatch(/Type\s+Resource\s+Min\s+Max\s+Default Request\s+Default Limit\s+Max Limit\/Request Ratio/);
    expect(described).toMatch(/Container\s+cpu\s+100m\s+-\s+200m\s+500m\s+-/);
  }, 60_000);

  it('answers bad quotas and LimitRanges with Kubernetes’ 4xx, never a 5xx', async () => {
    const ns = 'quota-bad';
    await createNamespace(client, ns);
    const quota = (hard: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'bad' },
      spec: { hard, ...extra },
    });
    // Text that is no quantity fails decoding, as in Kubernetes: 400.
    const malformed = await client.post<Status>(`/api/v1/namespaces/${ns}/resourcequotas`, quota({ pods: '2x' }));
    expect(expectFailure(malformed, 400, 'BadRequest').message).toContain('quantities must match the regular expression');
    const negative = await client.post<Status>(`/api/v1/namespaces/${ns}/resourcequotas`, quota({ pods: '-1', 'requests.cpu': '1', frobs: '1' }));
    expect(expectFailure(negative, 422, 'Invalid').message).toBe(
      'ResourceQuota "bad" is invalid: [spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0, spec.hard[frobs]: Invalid value: "frobs": must be a standard resource type or fully qualified, spec.hard[frobs]: Invalid value: "frobs": must be a standard resource for quota]',
    );
    const fraction = await client.post<Status>(`/api/v1/namespaces/${ns}/resourcequotas`, quota({ pods: '1500m' }));
    expect(expectFailure(fraction, 422, 'Invalid').message).toBe('ResourceQuota "bad" is invalid: spec.hard[pods]: Invalid value: "1500m": must be an integer');
    const scopes = await client.post<Status>(`/api/v1/namespaces/${ns}/resourcequotas`, quota({ pods: '1' }, { scopes: ['BestEffort', 'NotBestEffort'] }));
    expect(expectFailure(scopes, 422, 'Invalid').message).toMatch(/spec\.scopes: Invalid value: .*: conflicting scopes/);

    const limits = (item: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'bad' }, spec: { limits: [item] } });
    const badText = await client.post<Status>(`/api/v1/namespaces/${ns}/limitranges`, limits({ type: 'Container', max: { cpu: 'lots' } }));
    expect(expectFailure(badText, 400, 'BadRequest').message).toContain('quantities must match the regular expression');
    const inverted = await client.post<Status>(`/api/v1/namespaces/${ns}/limitranges`, limits({ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }));
    expect(expectFailure(inverted, 422, 'Invalid').message).toContain('spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1');
    const claimless = await client.post<Status>(`/api/v1/namespaces/${ns}/limitranges`, limits({ type: 'PersistentVolumeClaim' }));
    expect(expectFailure(claimless, 422, 'Invalid').message).toContain(
      'spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided',
    );
  }, 60_000);
});
