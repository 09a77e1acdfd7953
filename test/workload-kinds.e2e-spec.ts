import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Status } from '@svc/api';
import { ApiClient } from './support/api-client';
import { create, createNamespace, expectFailure, MERGE_PATCH } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { runKubectl } from './support/kubectl-run';

// The workload kinds (Job, CronJob, StatefulSet, DaemonSet, ControllerRevision, PodTemplate,
// PriorityClass) served by the real svc-apiserver process, as kubectl 1.32 and a raw client meet them.

/**
 * `kubectl api-resources` of a Kubernetes 1.32 API server with its default groups: name, short names,
 * apiVersion, namespaced, kind (58 resource types).
 */
const KUBERNETES_1_32 = `
bindings                            v1                               true  Binding
componentstatuses    cs             v1                               false ComponentStatus
configmaps           cm             v1                               true  ConfigMap
endpoints            ep             v1                               true  Endpoints
events               ev             v1                               true  Event
limitranges          limits         v1                               true  LimitRange
namespaces           ns             v1                               false Namespace
nodes                no             v1                               false Node
persistentvolumeclaims pvc          v1                               true  PersistentVolumeClaim
persistentvolumes    pv             v1                               false PersistentVolume
pods                 po             v1                               true  Pod
podtemplates                        v1                               true  PodTemplate
replicationcontrollers rc           v1                               true  ReplicationController
resourcequotas       quota          v1                               true  ResourceQuota
secrets                             v1                               true  Secret
serviceaccounts      sa             v1                               true  ServiceAccount
services             svc            v1                               true  Service
mutatingwebhookconfigurations       admissionregistration.k8s.io/v1  false MutatingWebhookConfiguration
validatingadmissionpolicies         admissionregistration.k8s.io/v1  false ValidatingAdmissionPolicy
validatingadmissionpolicybindings   admissionregistration.k8s.io/v1  false ValidatingAdmissionPolicyBinding
validatingwebhookconfigurations     admissionregistration.k8s.io/v1  false ValidatingWebhookConfiguration
customresourcedefinitions crd,crds  apiextensions.k8s.io/v1          false CustomResourceDefinition
apiservices                         apiregistration.k8s.io/v1        false APIService
controllerrevisions                 apps/v1                          true  ControllerRevision
daemonsets           ds             apps/v1                          true  DaemonSet
deployments          deploy         apps/v1                          true  Deployment
replicasets          rs             apps/v1                          true  ReplicaSet
statefulsets         sts            apps/v1                          true  StatefulSet
selfsubjectreviews                  authentication.k8s.io/v1         false SelfSubjectReview
tokenreviews                        authentication.k8s.io/v1         false TokenReview
localsubjectaccessreviews           authorization.k8s.io/v1          true  LocalSubjectAccessReview
selfsubjectaccessreviews            authorization.k8s.io/v1          false SelfSubjectAccessReview
selfsubjectrulesreviews             authorization.k8s.io/v1          false SelfSubjectRulesReview
subjectaccessreviews                authorization.k8s.io/v1          false SubjectAccessReview
horizontalpodautoscalers hpa        autoscaling/v2                   true  HorizontalPodAutoscaler
cronjobs             cj             batch/v1                         true  CronJob
jobs                                batch/v1                         true  Job
certificatesigningrequests csr      certificates.k8s.io/v1           false CertificateSigningRequest
leases                              coordination.k8s.io/v1           true  Lease
endpointslices                      discovery.k8s.io/v1              true  EndpointSlice
events               ev             events.k8s.io/v1                 true  Event
flowschemas                         flowcontrol.apiserver.k8s.io/v1  false FlowSchema
prioritylevelconfigurations         flowcontrol.apiserver.k8s.io/v1  false PriorityLevelConfiguration
ingressclasses                      networking.k8s.io/v1             false IngressClass
ingresses            ing            networking.k8s.io/v1             true  Ingress
networkpolicies      netpol         networking.k8s.io/v1             true  NetworkPolicy
runtimeclasses                      node.k8s.io/v1                   false RuntimeClass
poddisruptionbudgets pdb            policy/v1                        true  PodDisruptionBudget
clusterrolebindings                 rbac.authorization.k8s.io/v1     false ClusterRoleBinding
clusterroles                        rbac.authorization.k8s.io/v1     false ClusterRole
rolebindings                        rbac.authorization.k8s.io/v1     true  RoleBinding
roles                               rbac.authorization.k8s.io/v1     true  Role
priorityclasses      pc             scheduling.k8s.io/v1             false PriorityClass
csidrivers                          storage.k8s.io/v1                false CSIDriver
csinodes                            storage.k8s.io/v1                false CSINode
csistoragecapacities                storage.k8s.io/v1                true  CSIStorageCapacity
storageclasses       sc             storage.k8s.io/v1                false StorageClass
volumeattachments                   storage.k8s.io/v1                false VolumeAttachment
`;

/**
 * Kubernetes' resource types this server does not serve yet, each `resource.apiVersion`; the issue
 * that brings a kind removes it here, so that the list ends empty.
 */
const STILL_TO_COME: string[] = [];

interface ResourceRow {
  name: string;
  shortNames: string;
  apiVersion: string;
  namespaced: string;
  kind: string;
}

const keyOf = (r: ResourceRow) => `${r.name}.${r.apiVersion}`;

function kubernetesRows(): ResourceRow[] {
  return KUBERNETES_1_32.trim()
    .split('\n')
    .map((line) => {
      const cells = line.trim().split(/\s+/);
      // A row without short names has four cells.
      const [name, shortNames, apiVersion, namespaced, kind] = cells.length === 5 ? cells : [cells[0], '', ...cells.slice(1)];
      return { name, shortNames, apiVersion, namespaced, kind };
    });
}

/** `kubectl api-resources` output, parsed by its header's column positions (short names may be empty). */
function parseApiResources(text: string): ResourceRow[] {
  const [header, ...lines] = text.trimEnd().split('\n');
  const at = (column: string) => header.indexOf(column);
  const columns = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'].map(at);
  const cell = (line: string, i: number) => line.slice(columns[i], i + 1 < columns.length ? columns[i + 1] : undefined).trim();
  return lines.map((line) => ({ name: cell(line, 0), shortNames: cell(line, 1), apiVersion: cell(line, 2), namespaced: cell(line, 3), kind: cell(line, 4) }));
}

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'workloads';

beforeAll(async () => {
  server = await startApiServerProcess();
  client = new ApiClient(server.url, server.ca);
  await createNamespace(client, ns);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

async function kubectl(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const res = await runKubectl(args, server.kubectlEnv);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${res.code}:\n${res.stdout}\n${res.stderr}`);
  return res;
}

async function kubectlFails(...args: string[]): Promise<string> {
  const res = await runKubectl(args, server.kubectlEnv);
  if (res.code === 0) throw new Error(`kubectl ${args.join(' ')} succeeded but should have failed:\n${res.stdout}`);
  return res.stderr;
}

async function manifest(name: string, text: string): Promise<string> {
  const file = join(server.dir, name);
  await writeFile(file, text);
  return file;
}

const container = { name: 'c', image: 'busybox:1.36' };
const jobs = `/apis/batch/v1/namespaces/${ns}/jobs`;
const cronJobs = `/apis/batch/v1/namespaces/${ns}/cronjobs`;
const statefulSets = `/apis/apps/v1/namespaces/${ns}/statefulsets`;
const daemonSets = `/apis/apps/v1/namespaces/${ns}/daemonsets`;

/** The causes of a 422 as `field: message`, with the Status message itself. */
function invalid(status: Status): { message: string; causes: string[] } {
  return { message: status.message ?? '', causes: (status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`) };
}

describe('the API surface kubectl sees', () => {
  it("lists Kubernetes 1.32's resource types but those still to come, and nothing else, under Kubernetes' group names", async () => {
    const served = parseApiResources((await kubectl('api-resources')).stdout).filter((r) => !r.apiVersion.split('/')[0].endsWith('.svc.io'));
    const expected = kubernetesRows();
    expect(expected).toHaveLength(58);
    const comingUnknown = STILL_TO_COME.filter((key) => !expected.some((r) => keyOf(r) === key));
    expect(comingUnknown).toEqual([]);
    const missing = expected.filter((r) => !served.some((s) => keyOf(s) === keyOf(r))).map(keyOf);
    // A kind served now leaves the list of those to come.
    expect(missing.sort()).toEqual([...STILL_TO_COME].sort());
    const extra = served.filter((s) => !expected.some((r) => keyOf(r) === keyOf(s))).map(keyOf);
    expect(extra).toEqual([]);
    // What is served reads as Kubernetes' does: short names, scope and kind.
    const different = served.filter((s) => JSON.stringify(s) !== JSON.stringify(expected.find((r) => keyOf(r) === keyOf(s))));
    expect(different).toEqual([]);
  });

  it('binds a pod through `bindings` (v1), the Binding naming the pod, as through its binding subresource; only a create is served', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bound-later' }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } };
    expect((await client.post('/api/v1/namespaces/default/pods', pod)).status).toBe(201);
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound-later' }, target: { kind: 'Node', name: 'node-a' } };
    const made = await client.post<{ kind: string; status: string; code: number }>('/api/v1/namespaces/default/bindings', binding);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
    const bound = await client.get<{ spec: { nodeName?: string }; status: { conditions?: Array<{ type: string; status: string }> } }>(
      '/api/v1/namespaces/default/pods/bound-later',
    );
    expect(bound.body.spec.nodeName).toBe('node-a');
    expect(bound.body.status.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]));
    // Bound once: a second Binding conflicts, as through the subresource.
    const again = await client.post<{ reason: string; message: string }>('/api/v1/namespaces/default/bindings', {
      ...binding,
      target: { kind: 'Node', name: 'node-b' },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('pod bound-later is already assigned to node "node-a"');
    expect((await client.get('/api/v1/namespaces/default/bindings')).status).toBe(405);
    expect((await client.post('/api/v1/namespaces/default/bindings', { ...binding, metadata: {} })).status).toBe(400);
    const missing = await client.post('/api/v1/namespaces/default/bindings', { ...binding, metadata: { name: 'nope' } });
    expect(missing.status).toBe(404);
  });

  it('serves the workload kinds under their groups, and PriorityClass under scheduling.svc.io too', async () => {
    const wide = parseApiResources((await kubectl('api-resources', '--api-group=scheduling.svc.io')).stdout);
    expect(wide.map((r) => [r.name, r.apiVersion, r.kind])).toEqual([['priorityclasses', 'scheduling.svc.io/v1', 'PriorityClass']]);
    const batch = (await client.get<{ resources: Array<{ name: string; verbs: string[]; categories?: string[] }> }>('/apis/batch/v1')).body.resources;
    expect(batch.map((r) => [r.name, r.categories ?? []])).toEqual([
      ['cronjobs', ['all']],
      ['cronjobs/status', []],
      ['jobs', ['all']],
      ['jobs/status', []],
    ]);
    const apps = (await client.get<{ resources: Array<{ name: string }> }>('/apis/apps/v1')).body.resources.map((r) => r.name);
    expect(apps).toEqual(expect.arrayContaining(['statefulsets/scale', 'statefulsets/status', 'daemonsets/status', 'controllerrevisions']));
    expect(apps).not.toContain('daemonsets/scale');
  });

  it('starts with the system priority classes', async () => {
    const { stdout } = await kubectl('get', 'priorityclasses');
    expect(stdout.split('\n')[0].split(/\s+/)).toEqual(['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
    expect(stdout).toMatch(/^system-cluster-critical\s+2000000000\s+false\s+\S+\s+PreemptLowerPriority$/m);
    expect(stdout).toMatch(/^system-node-critical\s+2000001000\s+false\s+\S+\s+PreemptLowerPriority$/m);
  });
});

describe('kubectl with the workload kinds', () => {
  it('creates Jobs and CronJobs, and get all lists them beside the other workloads', async () => {
    await kubectl('create', 'job', 'pi', '-n', ns, '--image=busybox:1.36', '--', 'sh', '-c', 'echo 3.14');
    await kubectl('create', 'cronjob', 'tick', '-n', ns, '--image=busybox:1.36', '--schedule=*/5 * * * *', '--', 'date');
    const job = JSON.parse((await kubectl('get', 'job', 'pi', '-n', ns, '-o', 'json')).stdout) as {
      metadata: { uid: string; labels: Record<string, string> };
      spec: Record<string, unknown>;
    };
    const uid = job.metadata.uid;
    expect(job.spec).toMatchObject({
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      completions: 1,
      parallelism: 1,
      manualSelector: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      suspend: false,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
    });
    expect(job.metadata.labels).toEqual({
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': uid,
      'job-name': 'pi',
    });
    await create(client, statefulSets, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        serviceName: 'web',
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container] } },
      },
    });
    await create(client, daemonSets, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [container] } } },
    });
    const names = (await kubectl('get', 'all', '-n', ns, '-o', 'name')).stdout.trim().split('\n').sort();
    expect(names).toEqual(['cronjob.batch/tick', 'daemonset.apps/agent', 'job.batch/pi', 'statefulset.apps/web']);
    const table = (await kubectl('get', 'jobs,cronjobs', '-n', ns)).stdout;
    expect(table).toMatch(/^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE$/m);
    expect(table).toMatch(/^job\.batch\/pi\s+Running\s+0\/1\s+\d+s$/m);
    expect(table).toMatch(/^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/m);
    expect(table).toMatch(/^cronjob\.batch\/tick\s+\*\/5 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\d+s$/m);
  });

  it('labels the pods of a Job created with a generateName with the name it is given', async () => {
    const job = await create<{
      metadata: { name: string; uid: string; labels: Record<string, string> };
      spec: { template: { metadata: { labels: Record<string, string> } } };
    }>(client, jobs, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { generateName: 'batch-' },
      spec: { template: { spec: { containers: [container], restartPolicy: 'Never' } } },
    });
    expect(job.metadata.name).toMatch(/^batch-[a-z0-9]{5}$/);
    const labels = {
      'batch.kubernetes.io/controller-uid': job.metadata.uid,
      'batch.kubernetes.io/job-name': job.metadata.name,
      'controller-uid': job.metadata.uid,
      'job-name': job.metadata.name,
    };
    expect(job.spec.template.metadata.labels).toEqual(labels);
    expect(job.metadata.labels).toEqual(labels);
    expect((await client.delete(`${jobs}/${job.metadata.name}`, { propagationPolicy: 'Background' })).status).toBe(200);
  });

  it('scales a StatefulSet through its scale subresource, which a DaemonSet does not have', async () => {
    await kubectl('scale', 'statefulset', 'web', '-n', ns, '--replicas=3');
    const sts = JSON.parse((await kubectl('get', 'sts', 'web', '-n', ns, '-o', 'json')).stdout) as {
      metadata: { generation: number };
      spec: { replicas: number };
    };
    expect([sts.spec.replicas, sts.metadata.generation]).toEqual([3, 2]);
    expect((await kubectl('get', 'sts', 'web', '-n', ns)).stdout).toMatch(/^web\s+0\/3\s+\d+s$/m);
    expect(await kubectlFails('scale', 'daemonset', 'agent', '-n', ns, '--replicas=3')).toMatch(/the server could not find the requested resource/);
  });

  it('resets the status a client sends, and takes status writes through the status subresource only', async () => {
    const res = await client.patch<{ status: unknown; metadata: { generation: number } }>(`${statefulSets}/web`, MERGE_PATCH, { status: { replicas: 9 } });
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual({ replicas: 0, availableReplicas: 0 });
    const status = await client.patch<{ status: unknown; metadata: { generation: number } }>(`${statefulSets}/web/status`, MERGE_PATCH, {
      status: { replicas: 3, readyReplicas: 2, observedGeneration: 2 },
    });
    expect([status.status, status.body.status, status.body.metadata.generation]).toEqual([
      200,
      { replicas: 3, readyReplicas: 2, observedGeneration: 2, availableReplicas: 0 },
      2,
    ]);
    const beyond = await client.patch(`${statefulSets}/web/status`, MERGE_PATCH, { status: { readyReplicas: 5 } });
    expect(invalid(expectFailure(beyond, 422, 'Invalid')).causes).toEqual(['status.readyReplicas: Invalid value: 5: cannot be greater than status.replicas']);
  });

  it('warns of the pod templates of Jobs and DaemonSets that PodSecurity would refuse as pods', async () => {
    await createNamespace(client, 'workloads-psa');
    await client.patch('/api/v1/namespaces/workloads-psa', MERGE_PATCH, {
      metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'baseline' } },
    });
    const file = await manifest(
      'host.yaml',
      `apiVersion: batch/v1
kind: Job
metadata: { name: host, namespace: workloads-psa }
spec:
  template:
    spec:
      hostPID: true
      restartPolicy: Never
      containers: [{ name: c, image: busybox:1.36 }]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: host, namespace: workloads-psa }
spec:
  selector: { matchLabels: { app: host } }
  template:
    metadata: { labels: { app: host } }
    spec:
      hostNetwork: true
      containers: [{ name: c, image: busybox:1.36 }]
`,
    );
    // Workloads are admitted with a warning; only their pods would be refused.
    const { stdout, stderr } = await kubectl('apply', '-f', file);
    expect(stdout).toMatch(/job\.batch\/host created/);
    expect(stdout).toMatch(/daemonset\.apps\/host created/);
    expect(stderr).toContain('Warning: would violate PodSecurity "baseline:latest": host namespaces (hostPID=true)');
    expect(stderr).toContain('Warning: would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)');
  });
});

describe('bad workloads, refused with 422 and Kubernetes’ field paths and messages', () => {
  it('a Job with completions below 0', async () => {
    const res = await client.post(jobs, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'negative' },
      spec: { completions: -1, template: { spec: { containers: [container], restartPolicy: 'Never' } } },
    });
    expect(invalid(expectFailure(res, 422, 'Invalid'))).toEqual({
      message: 'Job.batch "negative" is invalid: spec.completions: Invalid value: -1: must be greater than or equal to 0',
      causes: ['spec.completions: Invalid value: -1: must be greater than or equal to 0'],
    });
  });

  it('a CronJob with an invalid schedule, a time zone in it, or an unknown time zone', async () => {
    const cronJob = (spec: Record<string, unknown>) => ({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'bad' },
      spec: { jobTemplate: { spec: { template: { spec: { containers: [container], restartPolicy: 'OnFailure' } } } }, ...spec },
    });
    expect(invalid(expectFailure(await client.post(cronJobs, cronJob({ schedule: '0 0 * * 7' })), 422, 'Invalid'))).toEqual({
      message: 'CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "0 0 * * 7": end of range (7) above maximum (6): 7',
      causes: ['spec.schedule: Invalid value: "0 0 * * 7": end of range (7) above maximum (6): 7'],
    });
    expect(invalid(expectFailure(await client.post(cronJobs, cronJob({ schedule: 'TZ=Europe/Paris 0 9 * * *' })), 422, 'Invalid')).causes).toEqual([
      'spec.schedule: Invalid value: "TZ=Europe/Paris 0 9 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
    expect(invalid(expectFailure(await client.post(cronJobs, cronJob({ schedule: '@daily', timeZone: 'Europe/Atlantis' })), 422, 'Invalid')).causes).toEqual([
      'spec.timeZone: Invalid value: "Europe/Atlantis": unknown time zone Europe/Atlantis',
    ]);
    // kubectl prints the same.
    expect(await kubectlFails('create', 'cronjob', 'bad', '-n', ns, '--image=busybox:1.36', '--schedule=every minute')).toContain(
      'spec.schedule: Invalid value: "every minute": expected exactly 5 fields, found 2: [every minute]',
    );
  });

  it('a StatefulSet whose selector does not match its template', async () => {
    const res = await client.post(statefulSets, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'mismatch' },
      spec: {
        selector: { matchLabels: { app: 'db' } },
        serviceName: 'db',
        template: { metadata: { labels: { app: 'cache' } }, spec: { containers: [container] } },
      },
    });
    expect(invalid(expectFailure(res, 422, 'Invalid')).causes).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"cache"}: `selector` does not match template `labels`',
    ]);
  });

  it('a DaemonSet update that changes its selector, and other immutable fields', async () => {
    const res = await client.patch(`${daemonSets}/agent`, MERGE_PATCH, {
      spec: { selector: { matchLabels: { app: 'agent', tier: 'x' } }, template: { metadata: { labels: { tier: 'x' } } } },
    });
    expect(invalid(expectFailure(res, 422, 'Invalid'))).toEqual({
      message: 'DaemonSet.apps "agent" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"agent","tier":"x"}}: field is immutable',
      causes: ['spec.selector: Invalid value: {"matchLabels":{"app":"agent","tier":"x"}}: field is immutable'],
    });
    const serviceName = await client.patch(`${statefulSets}/web`, MERGE_PATCH, { spec: { serviceName: 'other' } });
    expect(invalid(expectFailure(serviceName, 422, 'Invalid')).causes).toEqual([
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
    const completions = await client.patch(`${jobs}/pi`, MERGE_PATCH, { spec: { completions: 2 } });
    expect(invalid(expectFailure(completions, 422, 'Invalid')).causes).toEqual(['spec.completions: Invalid value: 2: field is immutable']);
  });

  it('a PriorityClass of a reserved name, a second global default, and a pod of an unknown class', async () => {
    const pcs = '/apis/scheduling.k8s.io/v1/priorityclasses';
    const reserved = await client.post(pcs, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'system-mine' }, value: 5 });
    expect(invalid(expectFailure(reserved, 422, 'Invalid')).causes).toEqual([
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    ]);
    await create(client, pcs, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'standard' }, value: 1000, globalDefault: true });
    const second = await client.post(pcs, {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'other' },
      value: 5,
      globalDefault: true,
    });
    expect(expectFailure(second, 403, 'Forbidden').message).toBe(
      'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass standard is already marked as default. Only one default can exist',
    );
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const unknown = await client.post(pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'lost' },
      spec: { priorityClassName: 'gold', containers: [container] },
    });
    expect(expectFailure(unknown, 403, 'Forbidden').message).toBe('pods "lost" is forbidden: no PriorityClass with name gold was found');
    // A pod that names no class gets the global default's value, and its name.
    const defaulted = await create<{ spec: { priority: number; priorityClassName: string; preemptionPolicy: string } }>(client, pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'plain' },
      spec: { containers: [container] },
    });
    expect(defaulted.spec).toMatchObject({ priority: 1000, priorityClassName: 'standard', preemptionPolicy: 'PreemptLowerPriority' });
    const value = await client.patch(`${pcs}/standard`, MERGE_PATCH, { value: 2000 });
    expect(invalid(expectFailure(value, 422, 'Invalid')).causes).toEqual(['value: Forbidden: may not be changed in an update.']);
  });
});
