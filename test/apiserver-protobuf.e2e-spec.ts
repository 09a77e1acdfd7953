import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeEnvelope, decodeKubernetesMessage, decodeProtobufObject, decodeWatchEvent, encodeProtobufObject, hasProtobufMessage } from '@svc/machinery';
import { Client, loadClientConfig } from '@svc/client';
import { ApiClient } from './support/api-client';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { runKubectl } from './support/kubectl-run';

// Kubernetes' protobuf on the real API server process: bodies kubectl sends in it keep every field,
// and a client asking for it gets Kubernetes' messages (gets, lists, watch frames), read here with
// the codec that reproduces Kubernetes' own fixtures byte for byte.

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'protobuf-e2e';

interface BinaryResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function call(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<BinaryResponse> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${server.url}${path}`, { method, headers, ca: server.ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Reads a protobuf watch stream's frames until `count` arrived. */
function watchFrames(path: string, count: number): Promise<{ headers: IncomingHttpHeaders; frames: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${server.url}${path}`, { headers: { Accept: PROTOBUF }, ca: server.ca, agent: false }, (res) => {
      let buffered = Buffer.alloc(0);
      const frames: Buffer[] = [];
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error(`only ${frames.length} frames of ${count}`));
      }, 15_000);
      res.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
          const size = buffered.readUInt32BE(0);
          frames.push(buffered.subarray(4, 4 + size));
          buffered = buffered.subarray(4 + size);
        }
        if (frames.length >= count) {
          clearTimeout(timer);
          req.destroy();
          resolve({ headers: res.headers, frames });
        }
      });
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end();
  });
}

const podManifest = `apiVersion: v1
kind: Pod
metadata:
  name: full
  labels: { app: full }
spec:
  securityContext:
    runAsUser: 1000
    fsGroup: 2000
    supplementalGroups: [3000]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - { key: kubernetes.io/os, operator: In, values: [linux] }
  volumes:
  - name: data
    emptyDir: { sizeLimit: 64Mi }
  - name: settings
    configMap: { name: settings, defaultMode: 420 }
  - name: token
    projected:
      sources:
      - serviceAccountToken: { path: token, expirationSeconds: 3607 }
  containers:
  - name: app
    image: registry.example/app:1.0
    securityContext:
      allowPrivilegeEscalation: false
      capabilities: { drop: [ALL] }
    livenessProbe:
      httpGet: { path: /healthz, port: 8080 }
      periodSeconds: 7
    readinessProbe:
      tcpSocket: { port: http }
    startupProbe:
      exec: { command: [cat, /tmp/ready] }
    resources:
      limits: { cpu: 500m, memory: 128Mi }
    ports:
    - { name: http, containerPort: 8080 }
    envFrom:
    - configMapRef: { name: settings }
    volumeMounts:
    - { name: data, mountPath: /data }
    - { name: settings, mountPath: /etc/settings, readOnly: true }
    - { name: token, mountPath: /var/run/token }
`;

beforeAll(async () => {
  server = await startApiServerProcess();
  client = new ApiClient(server.url, server.ca);
  expect((await client.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

type Pod = { spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } };

describe('Kubernetes protobuf requests', () => {
  it('keeps every field of a pod kubectl debug --copy-to sends as protobuf', async () => {
    const file = join(server.dir, 'full-pod.yaml');
    await writeFile(file, podManifest);
    const created = await runKubectl(['-n', ns, 'create', '-f', file], server.kubectlEnv);
    expect(created.stderr).toBe('');
    const debug = await runKubectl(['-n', ns, 'debug', 'full', '--copy-to=full-debug', '--image=busybox', '--container=debugger'], server.kubectlEnv);
    expect(debug.stderr).not.toContain('Not found');
    expect(debug.code).toBe(0);
    const original = (await client.get<Pod>(`/api/v1/namespaces/${ns}/pods/full`)).body;
    const copy = (await client.get<Pod>(`/api/v1/namespaces/${ns}/pods/full-debug`)).body;
    for (const field of ['volumes', 'affinity', 'securityContext']) expect(copy.spec[field]).toEqual(original.spec[field]);
    expect(copy.spec.containers[0]).toEqual(original.spec.containers[0]);
    expect(copy.spec.containers.map((c) => c.name)).toEqual(['app', 'debugger']);
  }, 60_000);
});

describe('Kubernetes protobuf answers', () => {
  it('answers a get in Kubernetes protobuf, the same object as the JSON answer', async () => {
    const json = (await client.get<Record<string, unknown>>(`/api/v1/namespaces/${ns}/pods/full`)).body;
    const res = await call('GET', `/api/v1/namespaces/${ns}/pods/full`, { Accept: PROTOBUF });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(PROTOBUF);
    const envelope = decodeEnvelope(res.body);
    // The object's own message, not JSON in the envelope.
    expect([envelope.apiVersion, envelope.kind, envelope.contentType]).toEqual(['v1', 'Pod', '']);
    expect(envelope.raw[0]).toBe(0x0a); // field 1, ObjectMeta
    const decoded = decodeProtobufObject(envelope);
    expect(decoded).toEqual(json);
    // And those bytes are exactly what Kubernetes' marshaller writes for that object.
    expect(Buffer.from(encodeProtobufObject(json)).equals(res.body)).toBe(true);
  });

  it('answers a list as the XxxList message', async () => {
    const res = await call('GET', `/api/v1/namespaces/${ns}/pods`, { Accept: `${PROTOBUF}, application/json` });
    expect(res.headers['content-type']).toBe(PROTOBUF);
    const envelope = decodeEnvelope(res.body);
    expect([envelope.apiVersion, envelope.kind]).toEqual(['v1', 'PodList']);
    const list = decodeProtobufObject(envelope) as { metadata: { resourceVersion: string }; items: Array<{ metadata: { name: string } }> };
    expect(list.items.map((p) => p.metadata.name).sort()).toEqual(['full', 'full-debug']);
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThan(0);
  });

  it('streams a watch as length-prefixed WatchEvent messages, each object in its own envelope', async () => {
    const watching = watchFrames(`/api/v1/namespaces/${ns}/configmaps?watch=1`, 2);
    await new Promise((r) => setTimeout(r, 300));
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' }, data: { a: '1' } };
    // Sent in protobuf too: the body is Kubernetes' ConfigMap message.
    const created = await call(
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
      Buffer.from(encodeProtobufObject(cm)),
    );
    expect(created.status).toBe(201);
    await eventually(async () =>
      expect((await client.patch(`/api/v1/namespaces/${ns}/configmaps/watched`, 'application/merge-patch+json', { data: { a: '2' } })).status).toBe(200),
    );
    const stream = await watching;
    expect(stream.headers['content-type']).toBe(`${PROTOBUF};stream=watch`);
    const events = stream.frames.map((frame) => decodeKubernetesMessage('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent', frame));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
    const objects = events.map((e) => e.object as { kind: string; data: Record<string, string> });
    expect(objects.map((o) => [o.kind, o.data.a])).toEqual([
      ['ConfigMap', '1'],
      ['ConfigMap', '2'],
    ]);
    // The frame is the raw message (no envelope prefix); the embedded object is an envelope.
    expect(stream.frames[0].subarray(0, 4).toString('hex')).not.toBe('6b387300');
  }, 30_000);

  it('answers errors as a protobuf Status', async () => {
    const res = await call('GET', `/api/v1/namespaces/${ns}/pods/absent`, { Accept: PROTOBUF });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe(PROTOBUF);
    const status = decodeProtobufObject(decodeEnvelope(res.body));
    expect(status).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('keeps custom resources in JSON: 406 when only protobuf is accepted, JSON when JSON is accepted too', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    expect((await client.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    const path = `/apis/example.com/v1/namespaces/${ns}/widgets`;
    await eventually(async () => expect((await client.post(path, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).status).toBe(201));
    const only = await call('GET', path, { Accept: PROTOBUF });
    expect(only.status).toBe(406);
    const both = await call('GET', path, { Accept: `${PROTOBUF}, application/json` });
    expect(both.status).toBe(200);
    expect(both.headers['content-type']).toBe('application/json');
    expect((JSON.parse(both.body.toString('utf8')) as { kind: string }).kind).toBe('WidgetList');
  }, 30_000);
});

// ---- every built-in kind ----

const T0 = '2024-05-06T07:08:09Z';
const CONTAINERS = [{ name: 'app', image: 'registry.example/app:1.0' }];
const TEMPLATE = { metadata: { labels: { app: 'every' } }, spec: { containers: CONTAINERS } };
const CONDITION = { status: 'True', lastTransitionTime: T0, reason: 'Checked', message: 'as set by the test' };

/**
 * A valid object of each listable built-in kind (without apiVersion, kind and metadata.name), and a
 * status to write through the status subresource where the kind has one, so that the answers carry
 * spec and status both. A kind served later without an entry here fails the test: this is the gate.
 */
const EVERY_KIND: Record<string, { body: Record<string, unknown>; status?: Record<string, unknown> }> = {
  'v1/ConfigMap': { body: { data: { a: '1' }, binaryData: { b: Buffer.from([0, 1, 2]).toString('base64') } } },
  'v1/Secret': { body: { type: 'Opaque', data: { token: Buffer.from('s3cret').toString('base64') } } },
  'v1/ServiceAccount': { body: { automountServiceAccountToken: false, secrets: [{ name: 'held' }] } },
  'v1/Endpoints': { body: { subsets: [{ addresses: [{ ip: '10.0.0.1', nodeName: 'n1' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }] } },
  'v1/Event': {
    body: {
      involvedObject: { kind: 'ConfigMap', name: 'every-configmap', namespace: ns, apiVersion: 'v1' },
      reason: 'Checked',
      message: 'protobuf answers',
      type: 'Normal',
      count: 3,
      firstTimestamp: T0,
      lastTimestamp: T0,
      source: { component: 'protobuf-e2e' },
    },
  },
  'v1/Namespace': { body: { spec: { finalizers: ['kubernetes'] } } },
  'v1/Node': {
    body: { spec: { podCIDR: '10.244.7.0/24', podCIDRs: ['10.244.7.0/24'], taints: [{ key: 'example.com/t', value: 'v', effect: 'NoSchedule' }] } },
    status: {
      capacity: { cpu: '2', memory: '4Gi', pods: '110' },
      allocatable: { cpu: '1900m', memory: '3Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: T0, lastTransitionTime: T0, reason: 'NodeAgentReady', message: 'ready' }],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'Hostname', address: 'every-node' },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: 'm',
        systemUUID: 's',
        bootID: 'b',
        kernelVersion: '6.1.0',
        osImage: 'Debian',
        containerRuntimeVersion: 'containerd://1.7',
        kubeletVersion: 'v1.32.0',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: [{ names: ['registry.example/app:1.0'], sizeBytes: 1234 }],
    },
  },
  'v1/Pod': {
    body: { spec: { containers: [{ ...CONTAINERS[0], ports: [{ containerPort: 8080 }], resources: { limits: { cpu: '500m', memory: '128Mi' } } }] } },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: T0 }],
      hostIP: '10.0.0.5',
      podIP: '10.244.7.9',
      podIPs: [{ ip: '10.244.7.9' }],
      startTime: T0,
      containerStatuses: [
        {
          name: 'app',
          ready: true,
          started: true,
          restartCount: 1,
          image: 'registry.example/app:1.0',
          imageID: 'registry.example/app@sha256:0000000000000000000000000000000000000000000000000000000000000000',
          containerID: 'containerd://abc',
          state: { running: { startedAt: T0 } },
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: T0, finishedAt: T0 } },
        },
      ],
    },
  },
  'v1/ReplicationController': {
    body: { spec: { replicas: 2, selector: { app: 'every' }, template: TEMPLATE } },
    status: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1 },
  },
  'v1/Service': {
    body: { spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }], selector: { app: 'every' }, sessionAffinity: 'ClientIP' } },
    status: { conditions: [{ type: 'Checked', ...CONDITION }] },
  },
  'apps/v1/Deployment': {
    body: {
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'every' } },
        template: TEMPLATE,
        strategy: { rollingUpdate: { maxSurge: '50%', maxUnavailable: 0 } },
      },
    },
    status: {
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      conditions: [{ type: 'Available', lastUpdateTime: T0, ...CONDITION }],
    },
  },
  'apps/v1/ReplicaSet': {
    body: { spec: { replicas: 2, selector: { matchLabels: { app: 'every' } }, template: TEMPLATE } },
    status: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 1 },
  },
  'policy/v1/PodDisruptionBudget': {
    body: { spec: { minAvailable: 1, selector: { matchLabels: { app: 'every' } } } },
    status: {
      observedGeneration: 1,
      disruptionsAllowed: 1,
      currentHealthy: 2,
      desiredHealthy: 1,
      expectedPods: 2,
      conditions: [{ type: 'DisruptionAllowed', observedGeneration: 1, ...CONDITION }],
    },
  },
  'rbac.authorization.k8s.io/v1/ClusterRole': { body: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] } },
  'rbac.authorization.k8s.io/v1/Role': { body: { rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] }] } },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': {
    body: {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' }],
    },
  },
  'rbac.authorization.k8s.io/v1/RoleBinding': {
    body: {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
      subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: ns }],
    },
  },
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': {
    body: {
      webhooks: [
        {
          name: 'check.example.com',
          clientConfig: { url: 'https://webhook.example.com/check' },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], scope: 'Namespaced' }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          namespaceSelector: { matchLabels: { never: 'matches' } },
          timeoutSeconds: 5,
        },
      ],
    },
  },
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': {
    body: {
      webhooks: [
        {
          name: 'mutate.example.com',
          clientConfig: { url: 'https://webhook.example.com/mutate' },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          namespaceSelector: { matchLabels: { never: 'matches' } },
          reinvocationPolicy: 'IfNeeded',
        },
      ],
    },
  },
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': {
    body: {
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: "object.metadata.name != 'forbidden'", message: 'no' }],
      },
    },
  },
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': {
    body: {
      spec: {
        policyName: 'every-validatingadmissionpolicy',
        validationActions: ['Warn'],
        matchResources: { namespaceSelector: { matchLabels: { never: 'matches' } } },
      },
    },
  },
  'coordination.k8s.io/v1/Lease': {
    body: {
      spec: {
        holderIdentity: 'holder',
        leaseDurationSeconds: 15,
        acquireTime: '2024-05-06T07:08:09.123456Z',
        renewTime: '2024-05-06T07:08:10.654321Z',
        leaseTransitions: 2,
      },
    },
  },
  'v1/PodTemplate': { body: { template: TEMPLATE } },
  // Counts a resource nothing here makes, and bounds claims only: the other kinds' objects stay as written.
  'v1/ResourceQuota': {
    body: {
      spec: {
        hard: { 'count/widgets.example.com': '5' },
        scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high', 'low'] }] },
      },
    },
    status: { hard: { 'count/widgets.example.com': '5' }, used: { 'count/widgets.example.com': '1' } },
  },
  'v1/LimitRange': { body: { spec: { limits: [{ type: 'PersistentVolumeClaim', min: { storage: '1Mi' }, max: { storage: '1Ti' } }] } } },
  'apps/v1/StatefulSet': {
    body: {
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'every' } },
        serviceName: 'every',
        template: TEMPLATE,
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        ordinals: { start: 1 },
      },
    },
    status: {
      observedGeneration: 1,
      replicas: 2,
      readyReplicas: 2,
      currentReplicas: 2,
      updatedReplicas: 2,
      currentRevision: 'every-1',
      updateRevision: 'every-1',
      availableReplicas: 2,
      collisionCount: 1,
    },
  },
  'apps/v1/DaemonSet': {
    body: {
      spec: { selector: { matchLabels: { app: 'every' } }, template: TEMPLATE, updateStrategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } } },
    },
    status: {
      currentNumberScheduled: 2,
      numberMisscheduled: 0,
      desiredNumberScheduled: 2,
      numberReady: 2,
      observedGeneration: 1,
      updatedNumberScheduled: 2,
      numberAvailable: 2,
    },
  },
  'apps/v1/ControllerRevision': { body: { data: { spec: { template: { $patch: 'replace', ...TEMPLATE } } }, revision: 3 } },
  'batch/v1/Job': {
    body: { spec: { completions: 2, parallelism: 2, template: { spec: { containers: CONTAINERS, restartPolicy: 'Never' } } } },
    status: { startTime: T0, active: 2, ready: 1, terminating: 0, uncountedTerminatedPods: { succeeded: ['u1'] } },
  },
  'batch/v1/CronJob': {
    body: {
      spec: { schedule: '@hourly', timeZone: 'Etc/UTC', jobTemplate: { spec: { template: { spec: { containers: CONTAINERS, restartPolicy: 'OnFailure' } } } } },
    },
    status: { lastScheduleTime: T0, active: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'every-job', namespace: ns }] },
  },
  'scheduling.k8s.io/v1/PriorityClass': { body: { value: 100, description: 'every kind', preemptionPolicy: 'Never' } },
  'v1/PersistentVolume': {
    body: {
      spec: {
        capacity: { storage: '5Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: 'local-path',
        mountOptions: ['noatime'],
        claimRef: { kind: 'PersistentVolumeClaim', namespace: ns, name: 'every-persistentvolumeclaim', uid: 'u-claim' },
        local: { path: '/var/lib/every', fsType: 'ext4' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['every-node'] }] }] } },
      },
    },
    status: { phase: 'Bound', reason: 'Provisioned', message: 'every kind', lastPhaseTransitionTime: T0 },
  },
  'v1/PersistentVolumeClaim': {
    body: {
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '5Gi' } },
        storageClassName: 'local-path',
        selector: { matchLabels: { tier: 'db' } },
        dataSource: { kind: 'PersistentVolumeClaim', name: 'origin' },
      },
    },
    status: {
      phase: 'Bound',
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: '5Gi' },
      allocatedResources: { storage: '5Gi' },
      conditions: [{ type: 'Resizing', status: 'True', lastProbeTime: T0, lastTransitionTime: T0 }],
    },
  },
  'storage.k8s.io/v1/StorageClass': {
    body: {
      provisioner: 'svc.io/local-path',
      parameters: { tier: 'gold' },
      reclaimPolicy: 'Retain',
      mountOptions: ['noatime'],
      allowVolumeExpansion: true,
      volumeBindingMode: 'WaitForFirstConsumer',
      allowedTopologies: [{ matchLabelExpressions: [{ key: 'kubernetes.io/hostname', values: ['every-node'] }] }],
    },
  },
  'storage.k8s.io/v1/CSIDriver': {
    body: {
      spec: {
        attachRequired: false,
        podInfoOnMount: true,
        tokenRequests: [{ audience: 'vault', expirationSeconds: 3600 }],
        volumeLifecycleModes: ['Persistent', 'Ephemeral'],
      },
    },
  },
  'storage.k8s.io/v1/CSINode': {
    body: {
      spec: { drivers: [{ name: 'every.csi.example.com', nodeID: 'every-node', topologyKeys: ['topology.kubernetes.io/zone'], allocatable: { count: 8 } }] },
    },
  },
  'storage.k8s.io/v1/CSIStorageCapacity': {
    body: {
      storageClassName: 'local-path',
      capacity: '100Gi',
      maximumVolumeSize: '10Gi',
      nodeTopology: { matchLabels: { 'kubernetes.io/hostname': 'every-node' } },
    },
  },
  'storage.k8s.io/v1/VolumeAttachment': {
    body: { spec: { attacher: 'every.csi.example.com', nodeName: 'every-node', source: { persistentVolumeName: 'every-persistentvolume' } } },
    status: { attached: true, attachmentMetadata: { device: '/dev/vdb' }, detachError: { time: T0, message: 'every kind' } },
  },
  'node.k8s.io/v1/RuntimeClass': {
    body: {
      handler: 'every',
      overhead: { podFixed: { cpu: '250m', memory: '64Mi' } },
      scheduling: { nodeSelector: { 'example.com/runtime': 'every' }, tolerations: [{ key: 'every', operator: 'Exists', effect: 'NoSchedule' }] },
    },
  },
  'events.k8s.io/v1/Event': {
    body: {
      eventTime: '2026-12-07T10:00:00.123456Z',
      reportingController: 'example.com/every',
      reportingInstance: 'every-1',
      action: 'Checking',
      reason: 'Checked',
      regarding: { apiVersion: 'v1', kind: 'Pod', namespace: ns, name: 'web' },
      note: 'all is well',
      type: 'Normal',
    },
  },
  'networking.k8s.io/v1/IngressClass': {
    body: {
      spec: { controller: 'example.com/every', parameters: { apiGroup: 'example.com', kind: 'Params', name: 'every', scope: 'Namespace', namespace: ns } },
    },
  },
  'networking.k8s.io/v1/Ingress': {
    body: {
      spec: {
        ingressClassName: 'every-ingressclass',
        defaultBackend: { service: { name: 'fallback', port: { name: 'http' } } },
        tls: [{ hosts: ['every.example', '*.every.example'], secretName: 'every-tls' }],
        rules: [
          {
            host: 'every.example',
            http: {
              paths: [
                { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } },
                { path: '/bucket', pathType: 'Exact', backend: { resource: { apiGroup: 'example.com', kind: 'Bucket', name: 'every' } } },
              ],
            },
          },
        ],
      },
    },
    status: {
      loadBalancer: { ingress: [{ ip: '192.0.2.9', ports: [{ port: 443, protocol: 'TCP', error: 'every kind' }] }, { hostname: 'lb.every.example' }] },
    },
  },
  'networking.k8s.io/v1/NetworkPolicy': {
    body: {
      spec: {
        podSelector: { matchLabels: { app: 'db' } },
        policyTypes: ['Ingress', 'Egress'],
        ingress: [
          {
            from: [{ podSelector: { matchLabels: { app: 'web' } }, namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] } }],
            ports: [
              { protocol: 'TCP', port: 5432 },
              { protocol: 'UDP', port: 9000, endPort: 9010 },
              { protocol: 'TCP', port: 'metrics' },
            ],
          },
        ],
        egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }],
      },
    },
  },
  'discovery.k8s.io/v1/EndpointSlice': {
    body: {
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.244.7.9'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'every-node', zone: 'z1' }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    },
  },
  'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration': {
    body: {
      spec: {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 7,
          lendablePercent: 10,
          borrowingLimitPercent: 20,
          limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 9 } },
        },
      },
    },
    status: { conditions: [{ type: 'Seen', status: 'True', lastTransitionTime: T0, reason: 'EveryKind', message: 'every kind' }] },
  },
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema': {
    body: {
      spec: {
        priorityLevelConfiguration: { name: 'every-prioritylevelconfiguration' },
        matchingPrecedence: 700,
        distinguisherMethod: { type: 'ByNamespace' },
        rules: [
          {
            subjects: [
              { kind: 'User', user: { name: 'every-user' } },
              { kind: 'Group', group: { name: 'every-group' } },
              { kind: 'ServiceAccount', serviceAccount: { namespace: 'default', name: 'every-sa' } },
            ],
            resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], clusterScope: true, namespaces: ['default'] }],
            nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }],
          },
        ],
      },
    },
    status: { conditions: [{ type: 'Dangling', status: 'False', lastTransitionTime: T0, reason: 'Found', message: 'every kind' }] },
  },
};

/**
 * Listable kinds with a message that a describe of their own checks, each with the reason: a CRD's
 * name is fixed by its group and plural, and its status moves as the API server establishes it.
 */
/** The fixture object's name: by kind, and by group too where two groups serve a kind of one name on one storage (Events). */
function fixtureName(kind: { apiVersion: string; kind: string }): string {
  const shared = Object.keys(EVERY_KIND).filter((key) => key.endsWith(`/${kind.kind}`)).length > 1;
  return shared ? `every-${kind.kind.toLowerCase()}-${kind.apiVersion.split('/')[0].split('.')[0]}` : `every-${kind.kind.toLowerCase()}`;
}

const CHECKED_APART: Readonly<Record<string, string>> = {
  'apiextensions.k8s.io/v1/CustomResourceDefinition': "custom resource definitions in Kubernetes protobuf, as client-go's apiextensions clientset reads them",
  // Its name must be <version>.<group> and its status is the availability controller's to write.
  'apiregistration.k8s.io/v1/APIService': 'APIServices in protobuf, in the API aggregation end-to-end test (test/api-aggregation.e2e-spec.ts)',
  // One object served at two versions (this file names each fixture by kind alone), and a request that must be a real PKCS#10.
  'autoscaling/v2/HorizontalPodAutoscaler': 'both versions in protobuf, in test/horizontal-pod-autoscaler-api.e2e-spec.ts',
  'autoscaling/v1/HorizontalPodAutoscaler': 'both versions in protobuf, in test/horizontal-pod-autoscaler-api.e2e-spec.ts',
  'certificates.k8s.io/v1/CertificateSigningRequest': 'a signed request in protobuf, in test/node-bootstrap.e2e-spec.ts',
};

interface ServedKind {
  apiVersion: string;
  kind: string;
  resource: string;
  namespaced: boolean;
  verbs: string[];
  subresources: string[];
}

/** The resources discovery lists under Kubernetes' group names, with the subresources each has. */
async function servedKinds(): Promise<ServedKind[]> {
  const groups = (await client.get<{ groups: Array<{ versions: Array<{ groupVersion: string }> }> }>('/apis')).body.groups;
  const versions = ['v1', ...groups.flatMap((g) => g.versions.map((v) => v.groupVersion)).filter((gv) => !gv.includes('.svc.io/'))];
  const out: ServedKind[] = [];
  for (const gv of versions) {
    type Listed = { name: string; kind: string; namespaced: boolean; verbs: string[] };
    const listed = (await client.get<{ resources: Listed[] }>(gv === 'v1' ? '/api/v1' : `/apis/${gv}`)).body.resources;
    for (const r of listed.filter((l) => !l.name.includes('/'))) {
      const subresources = listed.filter((l) => l.name.startsWith(`${r.name}/`)).map((l) => l.name.slice(r.name.length + 1));
      out.push({ apiVersion: gv, kind: r.kind, resource: r.name, namespaced: r.namespaced, verbs: r.verbs, subresources });
    }
  }
  return out;
}

function basePath(apiVersion: string): string {
  return apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`;
}

function collectionOf(kind: ServedKind, apiVersion = kind.apiVersion): string {
  return `${basePath(apiVersion)}${kind.namespaced ? `/namespaces/${ns}` : ''}/${kind.resource}`;
}

/** The Accept client-go sends when its content type is protobuf. */
const CLIENT_GO_ACCEPT = `${PROTOBUF}, application/json`;

function decodedAnswer(res: BinaryResponse): Record<string, unknown> {
  expect(res.headers['content-type']).toBe(PROTOBUF);
  const envelope = decodeEnvelope(res.body);
  // The kind's own message: no JSON inside the envelope.
  expect(envelope.contentType).toBe('');
  return decodeProtobufObject(envelope);
}

/**
 * An object without its empty strings, nulls and empty objects, which JSON and protobuf show
 * differently: this server's JSON keeps some Go's `omitempty` leaves out (an empty field manager, an
 * empty continue token) and leaves out some Go always writes (an Event's empty reportingComponent, a
 * policy's empty status), as a decode of the protobuf does. Nor does it keep the apiVersion and kind
 * of an object embedded in another (a StatefulSet's claim templates): Kubernetes' messages carry no
 * type meta but at the top, and its JSON answers have them where its protobuf answers do not. The
 * bytes are checked exactly beside this.
 */
function withoutEmpty(value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutEmpty(v, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  const embedded = depth > 0 && 'metadata' in value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !(embedded && (k === 'apiVersion' || k === 'kind')))
      .map(([k, v]) => [k, withoutEmpty(v, depth + 1)])
      .filter(([, v]) => v !== '' && v !== null && !(typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0)),
  );
}

/** Reads a protobuf watch until an event carries `resourceVersion`; its frames, decoded. */
async function watchUntil(
  path: string,
  resourceVersion: string,
  accept = CLIENT_GO_ACCEPT,
): Promise<{ headers: IncomingHttpHeaders; events: Array<{ type: string; object: Record<string, unknown> }> }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${server.url}${path}`, { headers: { Accept: accept }, ca: server.ca, agent: false }, (res) => {
      let buffered = Buffer.alloc(0);
      const events: Array<{ type: string; object: Record<string, unknown> }> = [];
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error(`no event at ${resourceVersion} on ${path}: ${JSON.stringify(events.map((e) => e.type))}`));
      }, 10_000);
      res.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
          const frame = buffered.subarray(4, 4 + buffered.readUInt32BE(0));
          buffered = buffered.subarray(4 + frame.length);
          // A raw WatchEvent, as Kubernetes' stream serializer writes it: no envelope prefix.
          expect(frame.subarray(0, 4).toString('hex')).not.toBe('6b387300');
          events.push(decodeWatchEvent(frame));
        }
        const last = events[events.length - 1] as { object: { metadata?: { resourceVersion?: string } } } | undefined;
        if (last?.object.metadata?.resourceVersion === resourceVersion) {
          clearTimeout(timer);
          req.destroy();
          resolve({ headers: res.headers, events });
        }
      });
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end();
  });
}

describe('every built-in kind with a message, as a client-go protobuf client reads it', () => {
  let kinds: ServedKind[];

  beforeAll(async () => {
    kinds = (await servedKinds()).filter((k) => hasProtobufMessage(k.apiVersion, k.kind));
  }, 30_000);

  it('has a fixture for every listable kind discovery serves with a message', () => {
    const listable = kinds.filter((k) => k.verbs.includes('create') && k.verbs.includes('watch')).map((k) => `${k.apiVersion}/${k.kind}`);
    expect(listable.length).toBeGreaterThan(20);
    expect(listable.filter((key) => !EVERY_KIND[key] && !CHECKED_APART[key])).toEqual([]);
  });

  it('answers get, list and watch of each in its own message, spec and status, the same object as JSON', async () => {
    const checked: string[] = [];
    for (const kind of kinds.filter((k) => EVERY_KIND[`${k.apiVersion}/${k.kind}`])) {
      const fixture = EVERY_KIND[`${kind.apiVersion}/${kind.kind}`];
      const name = fixtureName(kind);
      const collection = collectionOf(kind);
      const before = (await client.get<{ metadata: { resourceVersion: string } }>(collection, { limit: 1 })).body.metadata.resourceVersion;
      const created = await client.post(collection, { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name }, ...fixture.body });
      expect([kind.kind, created.status, created.text.slice(0, 300)]).toEqual([kind.kind, 201, expect.any(String)]);
      if (fixture.status && kind.subresources.includes('status')) {
        const patched = await client.patch(`${collection}/${name}/status`, 'application/merge-patch+json', { status: fixture.status });
        expect([kind.kind, patched.status, patched.text.slice(0, 300)]).toEqual([kind.kind, 200, expect.any(String)]);
      }
      const json = (await client.get<Record<string, unknown> & { metadata: { resourceVersion: string } }>(`${collection}/${name}`)).body;
      if (fixture.status && kind.subresources.includes('status')) expect([kind.kind, json.status]).toEqual([kind.kind, expect.objectContaining({})]);

      const got = await call('GET', `${collection}/${name}`, { Accept: CLIENT_GO_ACCEPT });
      expect([kind.kind, got.status]).toEqual([kind.kind, 200]);
      expect(withoutEmpty(decodedAnswer(got))).toEqual(withoutEmpty(json));
      expect(Buffer.from(encodeProtobufObject(json)).equals(got.body)).toBe(true);

      const listed = await call('GET', `${collection}?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`, { Accept: CLIENT_GO_ACCEPT });
      const list = decodedAnswer(listed) as { kind: string; apiVersion: string; items: unknown[] };
      expect([list.apiVersion, list.kind]).toEqual([kind.apiVersion, `${kind.kind}List`]);
      // Items carry no type meta in the list message; everything else is the object.
      const { apiVersion: _a, kind: _k, ...bare } = json;
      expect(withoutEmpty(list.items)).toEqual([withoutEmpty(bare)]);

      const watched = await watchUntil(
        `${collection}?watch=1&resourceVersion=${before}&fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`,
        json.metadata.resourceVersion,
      );
      expect(watched.headers['content-type']).toBe(`${PROTOBUF};stream=watch`);
      expect(watched.events[0].type).toBe('ADDED');
      expect(withoutEmpty(watched.events[watched.events.length - 1].object)).toEqual(withoutEmpty(json));
      checked.push(kind.kind);
    }
    expect(checked.length).toBe(Object.keys(EVERY_KIND).length);
  }, 120_000);

  it('answers under the *.svc.io twin group in the same messages, the twin apiVersion in the envelope', async () => {
    const role = kinds.find((k) => k.kind === 'Role')!;
    const twin = 'rbac.authorization.svc.io/v1';
    const json = (await client.get<Record<string, unknown>>(`${collectionOf(role, twin)}/every-role`)).body;
    const got = await call('GET', `${collectionOf(role, twin)}/every-role`, { Accept: CLIENT_GO_ACCEPT });
    expect(decodeEnvelope(got.body).apiVersion).toBe(twin);
    expect(withoutEmpty(decodedAnswer(got))).toEqual(withoutEmpty(json));
  });

  it('reads and answers the review kinds in protobuf', async () => {
    const post = async (path: string, object: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const res = await call('POST', path, { 'Content-Type': PROTOBUF, Accept: CLIENT_GO_ACCEPT }, Buffer.from(encodeProtobufObject(object)));
      expect([object.kind, res.status]).toEqual([object.kind, 201]);
      return decodedAnswer(res);
    };
    const access = await post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: ns, verb: 'get', resource: 'pods' } },
    });
    expect(access).toMatchObject({ kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get' } }, status: { allowed: true } });
    const self = await post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(self).toMatchObject({ kind: 'SelfSubjectReview', status: { userInfo: { username: expect.any(String) } } });
    const rules = await post('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: ns },
    });
    expect(rules).toMatchObject({ kind: 'SelfSubjectRulesReview', status: { resourceRules: expect.any(Array) } });
  });

  it('lists component statuses in protobuf', async () => {
    const res = await call('GET', '/api/v1/componentstatuses', { Accept: CLIENT_GO_ACCEPT });
    const list = decodedAnswer(res) as { kind: string; items: Array<{ metadata: { name: string }; conditions: unknown[] }> };
    expect(list.kind).toBe('ComponentStatusList');
    expect(list.items.map((i) => i.metadata.name)).toContain('etcd-0');
    expect(list.items.every((i) => i.conditions.length > 0)).toBe(true);
  });

  it("answers metadata-only reads in protobuf, as client-go's metadata client asks, custom resources included", async () => {
    const accept = (as: string) => `${PROTOBUF};as=${as};g=meta.k8s.io;v=v1, application/json;as=${as};g=meta.k8s.io;v=v1, application/json`;
    for (const collection of [`/api/v1/namespaces/${ns}/configmaps`, `/apis/example.com/v1/namespaces/${ns}/widgets`]) {
      const listed = await call('GET', collection, { Accept: accept('PartialObjectMetadataList') });
      expect(listed.headers['content-type']).toBe(`${PROTOBUF};as=PartialObjectMetadataList;v=v1;g=meta.k8s.io`);
      const list = decodeProtobufObject(decodeEnvelope(listed.body)) as { kind: string; items: Array<{ metadata: { name: string; resourceVersion: string } }> };
      expect(list.kind).toBe('PartialObjectMetadataList');
      const [first] = list.items;
      expect(first.metadata.name).toEqual(expect.any(String));
      const got = await call('GET', `${collection}/${first.metadata.name}`, { Accept: accept('PartialObjectMetadata') });
      expect(decodeProtobufObject(decodeEnvelope(got.body))).toEqual({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: first.metadata });
      const watched = await watchUntil(`${collection}?watch=1&resourceVersion=0`, first.metadata.resourceVersion, accept('PartialObjectMetadata'));
      expect(watched.events.map((e) => e.object.kind)).toContain('PartialObjectMetadata');
    }
  });
});

// ---- custom resource definitions ----

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A schema as real operators write them: every form of JSONSchemaProps' hand-marshalled unions that a v1 CRD may use. */
const RICH_SCHEMA = {
  type: 'object',
  description: 'A backup of a volume, kept for a while.',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['source'],
      'x-kubernetes-validations': [
        { rule: 'self.retention.days >= 1', message: 'retention must keep a day at least' },
        {
          rule: '!has(self.paused) || !self.paused || has(self.reason)',
          messageExpression: "'a paused backup needs a reason'",
          reason: 'FieldValueRequired',
          fieldPath: '.reason',
        },
        { rule: '!oldSelf.hasValue() || self.source.volume == oldSelf.value().source.volume', message: 'the volume is immutable', optionalOldSelf: true },
      ],
      properties: {
        source: {
          type: 'object',
          properties: {
            volume: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
            snapshotClass: { type: 'string', default: 'standard', nullable: true },
          },
        },
        schedule: { type: 'string', example: '0 3 * * *' },
        paused: { type: 'boolean', default: false },
        reason: { type: 'string' },
        retention: {
          type: 'object',
          default: { days: 7, copies: 3 },
          properties: {
            days: { type: 'integer', format: 'int32', minimum: 1, maximum: 3650, exclusiveMaximum: true },
            copies: { type: 'number', minimum: 0.5, exclusiveMinimum: true, multipleOf: 0.5 },
          },
        },
        mode: { type: 'string', enum: ['Full', 'Incremental'], default: 'Full' },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        tags: { type: 'object', additionalProperties: { type: 'string', maxLength: 63 }, 'x-kubernetes-map-type': 'granular' },
        // additionalProperties false is refused by this server's structural schema check: the codec's specs cover it.
        open: { type: 'object', additionalProperties: true },
        options: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        targets: {
          type: 'array',
          maxItems: 16,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, weight: { type: 'integer', default: 1, minimum: 0 }, zones: { type: 'array', items: { type: 'string' } } },
          },
        },
        notes: { type: 'string', not: { maxLength: 0 } },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' }, replicas: { type: 'integer' }, selector: { type: 'string' } } },
  },
};

function richCrd(group: string): Record<string, unknown> & { metadata: { name: string; labels: Record<string, string> }; spec: Record<string, unknown> } {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `backups.${group}`, labels: { tier: 'storage' } },
    spec: {
      group,
      names: { plural: 'backups', singular: 'backup', shortNames: ['bk'], kind: 'Backup', listKind: 'BackupList', categories: ['storage'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: RICH_SCHEMA },
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.retention.copies', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
          },
          additionalPrinterColumns: [{ name: 'Phase', type: 'string', description: 'where it is', priority: 1, jsonPath: '.status.phase' }],
          selectableFields: [{ jsonPath: '.spec.mode' }],
        },
        {
          name: 'v1beta1',
          served: true,
          storage: false,
          deprecated: true,
          deprecationWarning: 'v1beta1 Backup is deprecated; use v1',
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
      conversion: { strategy: 'None' },
    },
  };
}

/**
 * A CRD as compared between JSON and protobuf: spec and status exactly, metadata without its empty
 * values (this server's JSON shows a managed field's empty manager, which Go's omitempty leaves out).
 */
function comparable(object: unknown): unknown {
  const { metadata, ...rest } = object as Record<string, unknown>;
  return { ...rest, metadata: withoutEmpty(metadata) };
}

/** A CRD's JSON once its controller has established it (its status no longer moves). */
async function establishedCrd(name: string): Promise<Record<string, unknown> & { metadata: { resourceVersion: string }; spec: unknown }> {
  return eventually(async () => {
    const got = await client.get<
      Record<string, unknown> & { metadata: { resourceVersion: string }; spec: unknown; status?: { conditions?: Array<{ type: string; status: string }> } }
    >(`${CRDS}/${name}`);
    expect(got.body.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
    return got.body;
  });
}

describe("custom resource definitions in Kubernetes protobuf, as client-go's apiextensions clientset reads them", () => {
  let json: Record<string, unknown> & { metadata: { resourceVersion: string }; spec: unknown };
  const created = richCrd('json.backups.example.com');

  beforeAll(async () => {
    const res = await client.post(CRDS, created);
    expect(res.status === 201 ? 201 : res.text).toBe(201);
    json = await establishedCrd(created.metadata.name);
  }, 30_000);

  it('keeps the schema it was given, every union form included', () => {
    expect(json.spec).toEqual(created.spec);
  });

  it('answers a get in its own message, 200 to a client that accepts only protobuf, the same object as JSON', async () => {
    const got = await call('GET', `${CRDS}/${created.metadata.name}`, { Accept: PROTOBUF });
    expect(got.status).toBe(200);
    expect(comparable(decodedAnswer(got))).toEqual(comparable(json));
    expect(Buffer.from(encodeProtobufObject(json)).equals(got.body)).toBe(true);
  });

  it('answers a list as CustomResourceDefinitionList', async () => {
    const listed = await call('GET', `${CRDS}?fieldSelector=${encodeURIComponent(`metadata.name=${created.metadata.name}`)}`, { Accept: PROTOBUF });
    expect(listed.status).toBe(200);
    const list = decodedAnswer(listed) as { kind: string; apiVersion: string; items: unknown[] };
    expect([list.apiVersion, list.kind]).toEqual(['apiextensions.k8s.io/v1', 'CustomResourceDefinitionList']);
    const { apiVersion: _a, kind: _k, ...bare } = json;
    expect(list.items.map(comparable)).toEqual([comparable(bare)]);
  });

  it('streams a watch of it as WatchEvent messages holding its message', async () => {
    const watched = await watchUntil(
      `${CRDS}?watch=1&resourceVersion=0&fieldSelector=${encodeURIComponent(`metadata.name=${created.metadata.name}`)}`,
      json.metadata.resourceVersion,
      PROTOBUF,
    );
    expect(watched.headers['content-type']).toBe(`${PROTOBUF};stream=watch`);
    expect(comparable(watched.events[watched.events.length - 1].object)).toEqual(comparable(json));
  });

  it('creates one sent as protobuf, which reads back as JSON unchanged', async () => {
    const sent = richCrd('pb.backups.example.com');
    const res = await call('POST', CRDS, { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, Buffer.from(encodeProtobufObject(sent)));
    expect(res.status).toBe(201);
    expect(decodedAnswer(res)).toMatchObject({ metadata: { name: sent.metadata.name }, spec: sent.spec });
    const back = await establishedCrd(sent.metadata.name);
    expect(back.spec).toEqual(sent.spec);
    // The same object as the one written in JSON, group and name aside.
    expect({ ...(back.spec as object), group: '' }).toEqual({ ...(json.spec as object), group: '' });
    // And its custom resources are served, validated by the schema that travelled in protobuf.
    const path = `/apis/pb.backups.example.com/v1/namespaces/${ns}/backups`;
    const bad = await client.post(path, {
      apiVersion: 'pb.backups.example.com/v1',
      kind: 'Backup',
      metadata: { name: 'b' },
      spec: { source: { volume: 'v' }, mode: 'Sometimes' },
    });
    expect([bad.status, (bad.body as { message?: string }).message]).toEqual([422, expect.stringContaining('spec.mode: Unsupported value: "Sometimes"')]);
    const good = await client.post(path, {
      apiVersion: 'pb.backups.example.com/v1',
      kind: 'Backup',
      metadata: { name: 'b' },
      spec: { source: { volume: 'v' }, port: 'http' },
    });
    expect([good.status, good.text.slice(0, 300)]).toEqual([201, expect.any(String)]);
    expect((good.body as { spec: Record<string, unknown> }).spec).toMatchObject({ mode: 'Full', paused: false, retention: { days: 7, copies: 3 } });
  }, 30_000);

  it('reads them through the client in protobuf, the same as in JSON', async () => {
    const config = await loadClientConfig({ svcconfig: server.kubeconfig, discover: false });
    const clients = [new Client({ ...config, qps: -1, contentType: 'application/json' }), new Client({ ...config, qps: -1, contentType: PROTOBUF })];
    try {
      const info = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false, kind: 'CustomResourceDefinition' };
      const got = await Promise.all(clients.map((c) => c.dynamic(info).get(created.metadata.name)));
      expect(comparable(got[1])).toEqual(comparable(got[0]));
      expect(comparable(got[1])).toEqual(comparable(json));
    } finally {
      for (const c of clients) c.close();
    }
  });
});

describe('every built-in kind through the client, protobuf beside JSON', () => {
  let json: Client;
  let protobuf: Client;
  let kinds: ServedKind[];

  beforeAll(async () => {
    const config = await loadClientConfig({ svcconfig: server.kubeconfig, discover: false });
    json = new Client({ ...config, qps: -1, contentType: 'application/json' });
    protobuf = new Client({ ...config, qps: -1, contentType: 'application/vnd.svc.protobuf' });
    kinds = (await servedKinds()).filter((k) => EVERY_KIND[`${k.apiVersion}/${k.kind}`]);
  });

  afterAll(() => {
    json?.close();
    protobuf?.close();
  });

  it('decodes each object the same in get, list and watch, spec and status', async () => {
    for (const kind of kinds) {
      const slash = kind.apiVersion.lastIndexOf('/');
      const info = {
        group: slash < 0 ? '' : kind.apiVersion.slice(0, slash),
        version: kind.apiVersion.slice(slash + 1),
        resource: kind.resource,
        namespaced: kind.namespaced,
        kind: kind.kind,
      };
      const name = fixtureName(kind);
      const namespace = kind.namespaced ? ns : undefined;
      const [viaJson, viaProtobuf] = [json.dynamic(info), protobuf.dynamic(info)];
      const got = await Promise.all([viaJson.get(name, { namespace }), viaProtobuf.get(name, { namespace })]);
      expect([kind.kind, withoutEmpty(got[1])]).toEqual([kind.kind, withoutEmpty(got[0])]);
      // Status included: the fixtures wrote one where the kind has a status subresource.
      if (EVERY_KIND[`${kind.apiVersion}/${kind.kind}`].status) expect(got[1].status).toBeDefined();

      const selector = { namespace, fieldSelector: `metadata.name=${name}` };
      const listed = await Promise.all([viaJson.list(selector), viaProtobuf.list(selector)]);
      expect(withoutEmpty(listed[1].items)).toEqual(withoutEmpty(listed[0].items));
      // The protobuf list's items got their apiVersion and kind back, as JSON lists carry them.
      expect([listed[1].items[0].apiVersion, listed[1].items[0].kind]).toEqual([kind.apiVersion, kind.kind]);

      const events = await Promise.all(
        [viaJson, viaProtobuf].map(async (client) => {
          const watch = await client.watch({ ...selector, resourceVersion: '0' });
          for await (const event of watch) {
            watch.stop();
            return event;
          }
          throw new Error(`no event for ${kind.kind}`);
        }),
      );
      expect(events[1].type).toBe('ADDED');
      expect(withoutEmpty(events[1].object)).toEqual(withoutEmpty(events[0].object));
    }
  }, 60_000);

  it('creates, updates and deletes (with preconditions) in protobuf, reading back what a JSON write gives', async () => {
    const configMaps = [json.configMaps, protobuf.configMaps];
    const written = await Promise.all(
      configMaps.map((c, i) =>
        c.create({ metadata: { name: `written-${i}`, namespace: ns, labels: { via: String(i) } }, data: { a: '1' }, binaryData: { b: 'AAEC' } }),
      ),
    );
    const strip = (o: (typeof written)[number]) => ({
      ...o,
      metadata: { ...o.metadata, name: '', uid: '', resourceVersion: '', creationTimestamp: '', managedFields: undefined, labels: {} },
    });
    expect(withoutEmpty(strip(written[1]))).toEqual(withoutEmpty(strip(written[0])));
    const updated = await protobuf.configMaps.update({ ...written[1], data: { a: '2' } });
    expect(updated.data).toEqual({ a: '2' });
    const deleted = await protobuf.configMaps.delete('written-1', { namespace: ns, preconditions: { uid: written[1].metadata?.uid } });
    expect(deleted).toMatchObject({ kind: 'Status', status: 'Success' });
    await expect(protobuf.configMaps.get('written-1', { namespace: ns })).rejects.toMatchObject({ status: { reason: 'NotFound', code: 404 } });
  });
});
