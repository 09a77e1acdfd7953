// The controller manager under RBAC with --use-service-account-credentials: each controller acts as
// its own ServiceAccount in svc-system with its bootstrap role (the audit log names who did what), and
// the serviceaccount and root CA publisher controllers fill every namespace.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeIdentityConnectionFile } from '@svc/apiserver';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl as kubectlRun } from './support/kubectl-run';

let dir: string;
let server: ApiServerProcess;
let manager: ControllerManagerProcess;
let auditLog: string;

const kubectl = async (...args: string[]) => (await kubectlRun(args, server.kubectlEnv)).stdout.trim();

interface AuditLine {
  verb: string;
  user: { username: string };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
}

async function audited(match: (line: AuditLine) => boolean): Promise<AuditLine[]> {
  const text = await readFile(auditLog, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AuditLine)
    .filter(match);
}

/** Who made the successful `verb`s of `resource` (in `namespace`). */
async function actors(verb: string, resource: string, namespace?: string): Promise<string[]> {
  const lines = await audited(
    (l) =>
      l.verb === verb &&
      l.objectRef?.resource === resource &&
      (namespace === undefined || l.objectRef.namespace === namespace) &&
      (l.responseStatus?.code ?? 0) < 300,
  );
  return [...new Set(lines.map((l) => l.user.username))].sort();
}

const account = (name: string) => `system:serviceaccount:svc-system:${name}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-identities-e2e-'));
  await writeFile(join(dir, 'audit-policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n  - level: Metadata\n');
  auditLog = join(dir, 'audit.log');
  server = await startApiServerProcess({
    serviceAccountTokens: true,
    args: ['--authorization-mode=RBAC', `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`, `--audit-log-path=${auditLog}`],
  });
  await writeFile(join(dir, 'root-ca.crt'), server.ca);
  const identity = join(dir, 'controller-manager.svcconfig');
  await writeIdentityConnectionFile({
    connectionFile: server.kubeconfig,
    certDir: join(server.dir, 'certs'),
    path: identity,
    user: 'system:kube-controller-manager',
  });
  manager = await startControllerManagerProcess(
    server,
    [`--svcconfig=${identity}`, '--use-service-account-credentials', `--root-ca-file=${join(dir, 'root-ca.crt')}`],
    90_000,
  );
}, 150_000);

afterAll(async () => {
  await manager?.stop();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('--use-service-account-credentials', () => {
  it('gives each controller its ServiceAccount in svc-system', async () => {
    await eventually(async () => expect(manager.stdout()).toContain('Each controller acts as its own ServiceAccount in svc-system'));
    const names = (await kubectl('get', 'serviceaccounts', '-n', 'svc-system', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ');
    expect(names).toEqual(
      expect.arrayContaining([
        'deployment-controller',
        'replicaset-controller',
        'namespace-controller',
        'generic-garbage-collector',
        'service-account-controller',
        'root-ca-cert-publisher',
        'disruption-controller',
        'cronjob-controller',
        'job-controller',
        'ttl-after-finished-controller',
        'statefulset-controller',
        'daemon-set-controller',
        'resourcequota-controller',
      ]),
    );
  });

  it('fills a new namespace with its default ServiceAccount and kube-root-ca.crt, as their own controllers', async () => {
    await kubectl('create', 'namespace', 'fresh');
    await eventually(async () => expect(await kubectl('get', 'serviceaccount', 'default', '-n', 'fresh', '-o', 'name')).toBe('serviceaccount/default'), 30_000);
    await eventually(
      async () => expect(await kubectl('get', 'configmap', 'kube-root-ca.crt', '-n', 'fresh', '-o', 'jsonpath={.data.ca\\.crt}')).toBe(server.ca.trim()),
      30_000,
    );
    await eventually(async () => expect(await actors('create', 'serviceaccounts', 'fresh')).toEqual([account('service-account-controller')]));
    await eventually(async () => expect(await actors('create', 'configmaps', 'fresh')).toEqual([account('root-ca-cert-publisher')]));
  }, 60_000);

  it('keeps a ResourceQuota’s status as resourcequota-controller, within its bootstrap role', async () => {
    await kubectl('create', 'namespace', 'quota');
    await kubectl('create', 'quota', 'objects', '--hard=count/configmaps=5,pods=3', '-n', 'quota');
    // kube-root-ca.crt is the namespace's one config map.
    await eventually(
      async () =>
        expect(JSON.parse(await kubectl('get', 'quota', 'objects', '-n', 'quota', '-o', 'jsonpath={.status.used}'))).toEqual({
          'count/configmaps': '1',
          pods: '0',
        }),
      30_000,
    );
    expect(await actors('update', 'resourcequotas', 'quota')).toEqual([account('resourcequota-controller')]);
  }, 60_000);

  it('runs a CronJob as cronjob-controller', async () => {
    await kubectl('create', 'namespace', 'cron');
    // Hourly, at the minute of two minutes ago, and last run hours ago: a run is due as soon as it resumes.
    const lastRun = Math.floor((Date.now() - 120_000) / 60_000) * 60_000;
    const manifest = join(dir, 'cronjob.yaml');
    await writeFile(
      manifest,
      `apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: report}\nspec: {schedule: '${new Date(lastRun).getUTCMinutes()} * * * *', timeZone: UTC, suspend: true, ` +
        `jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: main, image: busybox}]}}}}}\n`,
    );
    await kubectl('create', '-f', manifest, '-n', 'cron');
    const longAgo = new Date(lastRun - 3 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await kubectl(
      'patch',
      'cronjob',
      'report',
      '-n',
      'cron',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { lastScheduleTime: longAgo } }),
    );
    await kubectl('patch', 'cronjob', 'report', '-n', 'cron', '--type=merge', '-p', '{"spec":{"suspend":false}}');
    await eventually(async () => expect(await kubectl('get', 'jobs', '-n', 'cron', '-o', 'name')).toBe(`job.batch/report-${lastRun / 60_000}`), 30_000);
    expect(await actors('create', 'jobs', 'cron')).toEqual([account('cronjob-controller')]);
    await eventually(async () => expect(await actors('update', 'cronjobs', 'cron')).toEqual([account('cronjob-controller')]));
  }, 60_000);

  it('runs deployment -> replicaset -> pods, the garbage collector and namespace deletion, each as its own account', async () => {
    await kubectl('create', 'namespace', 'work');
    await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=2', '-n', 'work');
    await eventually(async () => expect((await kubectl('get', 'pods', '-n', 'work', '-o', 'name')).split('\n')).toHaveLength(2), 60_000);
    expect(await actors('create', 'replicasets', 'work')).toEqual([account('deployment-controller')]);
    expect(await actors('create', 'pods', 'work')).toEqual([account('replicaset-controller')]);
    // From a file: `kubectl create poddisruptionbudget` sends protobuf, which the server does not speak for this kind.
    const budget = join(dir, 'pdb.yaml');
    await writeFile(
      budget,
      'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec: {minAvailable: 1, selector: {matchLabels: {app: web}}}\n',
    );
    await kubectl('create', '-f', budget, '-n', 'work');
    await eventually(async () => expect(await kubectl('get', 'pdb', 'web', '-n', 'work', '-o', 'jsonpath={.status.expectedPods}')).toBe('2'), 30_000);
    expect(await actors('update', 'poddisruptionbudgets', 'work')).toEqual([account('disruption-controller')]);

    // Orphan-free background deletion: the garbage collector removes the ReplicaSet and its pods.
    await kubectl('delete', 'deployment', 'web', '-n', 'work', '--cascade=background');
    await eventually(async () => expect(await kubectl('get', 'replicasets,pods', '-n', 'work', '-o', 'name')).toBe(''), 60_000);
    expect(await actors('delete', 'replicasets', 'work')).toEqual([account('generic-garbage-collector')]);

    await kubectl('create', 'configmap', 'leftover', '-n', 'work');
    await kubectl('delete', 'namespace', 'work', '--timeout=60s');
    expect(await actors('update', 'namespaces')).toContain(account('namespace-controller'));
    expect(manager.stderr()).not.toMatch(/forbidden/i);
  }, 150_000);
});
