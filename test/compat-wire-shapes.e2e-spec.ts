import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ApiClient } from './support/api-client';
import { createNamespace, eventually, expectStatus } from './support/api-fixtures';
import { type ApiServerProcess, ROOT, startApiServerProcess } from './support/apiserver-process';

// Each built-in kind created from a minimal manifest comes back in the shape Kubernetes (1.32) gives
// it: the fields its Go types always serialize and the defaults its defaulting functions, strategies
// and admission plugins set, each expected field citing where Kubernetes sets it. The same objects
// decode into @kubernetes/client-node's typed models and encode back without loss, and its typed
// APIs work against the server.
//
// Where Kubernetes differs and this server does not follow (yet), the difference is named:
// - Pod templates: `metadata.creationTimestamp: null` (Go's zero time); Event: `eventTime`,
//   `firstTimestamp` and `lastTimestamp` as null.
// - Namespace: the finalizer is the specification's `svc`, not `kubernetes`.

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'shapes';

beforeAll(async () => {
  server = await startApiServerProcess({ serviceAccountTokens: true });
  client = new ApiClient(server.url, server.ca);
  await createNamespace(client, ns);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

/** What the server sets on every object: identity, version, time, field managers. */
function serverMeta(name: string, extra: Record<string, unknown> = {}, namespaced = true): Record<string, unknown> {
  return {
    name,
    ...(namespaced ? { namespace: ns } : {}),
    uid: expect.stringMatching(/^[0-9a-f-]{36}$/),
    resourceVersion: expect.stringMatching(/^\d+$/),
    creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    managedFields: [expect.objectContaining({ operation: 'Update', fieldsType: 'FieldsV1' })],
    ...extra,
  };
}

/** A container as SetDefaults_Container (pkg/apis/core/v1/defaults.go) leaves it, for image `nginx:1.25`. */
const defaultedContainer = {
  name: 'c',
  image: 'nginx:1.25',
  imagePullPolicy: 'IfNotPresent', // SetDefaults_Container: a tag other than latest
  resources: {}, // Container.Resources is a struct value: always serialized
  terminationMessagePath: '/dev/termination-log', // SetDefaults_Container
  terminationMessagePolicy: 'File', // SetDefaults_Container
};

/** A pod spec as SetDefaults_PodSpec leaves it (pod templates too). */
const defaultedPodSpec = {
  containers: [defaultedContainer],
  dnsPolicy: 'ClusterFirst', // SetDefaults_PodSpec
  restartPolicy: 'Always', // SetDefaults_PodSpec
  schedulerName: 'default-scheduler', // SetDefaults_PodSpec
  securityContext: {}, // SetDefaults_PodSpec
  terminationGracePeriodSeconds: 30, // SetDefaults_PodSpec
};

const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } });

interface ShapeCase {
  kind: string;
  /** The typed model of @kubernetes/client-node. */
  model: string;
  collection: string;
  minimal: Record<string, unknown>;
  expected: Record<string, unknown>;
  /** A controller of the server changes it right after its create (a CRD is named and established). */
  settles?: boolean;
}

const CASES: ShapeCase[] = [
  {
    kind: 'Pod',
    model: 'V1Pod',
    collection: `/api/v1/namespaces/${ns}/pods`,
    minimal: { metadata: { name: 'pod' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } },
    expected: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: serverMeta('pod'), // podStrategy: no generation (1.32)
      spec: {
        ...defaultedPodSpec,
        // ServiceAccount admission plugin: the API access volume, mounted in every container
        containers: [
          {
            ...defaultedContainer,
            volumeMounts: [
              { name: expect.stringMatching(/^kube-api-access-[a-z0-9]{5}$/), readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
            ],
          },
        ],
        volumes: [
          {
            name: expect.stringMatching(/^kube-api-access-[a-z0-9]{5}$/),
            projected: {
              sources: [
                { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
                { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
                { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
              ],
              defaultMode: 420,
            },
          },
        ],
        enableServiceLinks: true, // SetDefaults_Pod
        preemptionPolicy: 'PreemptLowerPriority', // Priority admission plugin (plugin/pkg/admission/priority)
        priority: 0, // Priority admission plugin: no class, no global default
        serviceAccount: 'default', // v1 conversion of ServiceAccountName (DeprecatedServiceAccount)
        serviceAccountName: 'default', // ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount)
        // DefaultTolerationSeconds admission plugin (plugin/pkg/admission/defaulttolerationseconds): 300 s each
        tolerations: [
          { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
          { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
        ],
      },
      status: { phase: 'Pending', qosClass: 'BestEffort' }, // podStrategy.PrepareForCreate, qos.GetPodQOS
    },
  },
  {
    kind: 'Service',
    model: 'V1Service',
    collection: `/api/v1/namespaces/${ns}/services`,
    minimal: { metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }], selector: { app: 'web' } } },
    expected: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: serverMeta('svc'), // svcStrategy: no generation
      spec: {
        clusterIP: expect.stringMatching(/^10\.0\.0\.\d+$/), // Service REST allocation from --service-cluster-ip-range (10.0.0.0/24)
        clusterIPs: [expect.stringMatching(/^10\.0\.0\.\d+$/)], // Service REST allocation (one per family)
        internalTrafficPolicy: 'Cluster', // SetDefaults_Service
        ipFamilies: ['IPv4'], // Service REST initIPFamilyFields: the cluster's primary family
        ipFamilyPolicy: 'SingleStack', // Service REST initIPFamilyFields
        ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], // SetDefaults_Service: protocol TCP, targetPort = port
        selector: { app: 'web' },
        sessionAffinity: 'None', // SetDefaults_Service
        type: 'ClusterIP', // SetDefaults_Service
      },
      status: { loadBalancer: {} }, // svcStrategy.PrepareForCreate; ServiceStatus.LoadBalancer is a struct value
    },
  },
  {
    kind: 'Endpoints',
    model: 'V1Endpoints',
    collection: `/api/v1/namespaces/${ns}/endpoints`,
    minimal: { metadata: { name: 'ep' }, subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 8080 }] }] },
    expected: {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: serverMeta('ep'),
      subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 8080, protocol: 'TCP' }] }], // SetDefaults_Endpoints
    },
  },
  {
    kind: 'ConfigMap',
    model: 'V1ConfigMap',
    collection: `/api/v1/namespaces/${ns}/configmaps`,
    minimal: { metadata: { name: 'cm' }, data: { key: 'value' } },
    expected: { apiVersion: 'v1', kind: 'ConfigMap', metadata: serverMeta('cm'), data: { key: 'value' } },
  },
  {
    kind: 'Secret',
    model: 'V1Secret',
    collection: `/api/v1/namespaces/${ns}/secrets`,
    minimal: { metadata: { name: 'secret' }, stringData: { token: 'abc' } },
    expected: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: serverMeta('secret'),
      data: { token: 'YWJj' }, // secret strategy: stringData merged into data
      type: 'Opaque', // SetDefaults_Secret
    },
  },
  {
    kind: 'Namespace',
    model: 'V1Namespace',
    collection: '/api/v1/namespaces',
    minimal: { metadata: { name: 'shape-ns' } },
    expected: {
      apiVersion: 'v1',
      kind: 'Namespace',
      // SetDefaults_Namespace: the kubernetes.io/metadata.name label; namespaceStrategy: no generation
      metadata: serverMeta('shape-ns', { labels: { 'kubernetes.io/metadata.name': 'shape-ns' } }, false),
      spec: { finalizers: ['svc'] }, // namespaceStrategy.PrepareForCreate (Kubernetes names it `kubernetes`)
      status: { phase: 'Active' }, // namespaceStrategy.PrepareForCreate, SetDefaults_NamespaceStatus
    },
  },
  {
    kind: 'ServiceAccount',
    model: 'V1ServiceAccount',
    collection: `/api/v1/namespaces/${ns}/serviceaccounts`,
    minimal: { metadata: { name: 'sa' } },
    // A create that sets no field but the name records no field manager here (Kubernetes records one with no fields).
    expected: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: serverMeta('sa', { managedFields: undefined }) },
  },
  {
    kind: 'Node',
    model: 'V1Node',
    collection: '/api/v1/nodes',
    minimal: { metadata: { name: 'shape-node' } },
    expected: {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: serverMeta('shape-node', {}, false), // nodeStrategy: no generation
      // TaintNodesByCondition admission plugin (plugin/pkg/admission/nodetaint): a new node is not ready
      spec: { taints: [{ effect: 'NoSchedule', key: 'node.kubernetes.io/not-ready' }] },
      status: {
        // NodeStatus.DaemonEndpoints and NodeInfo are struct values; NodeSystemInfo's fields have no omitempty.
        daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
        nodeInfo: {
          architecture: '',
          bootID: '',
          containerRuntimeVersion: '',
          kernelVersion: '',
          kubeProxyVersion: '',
          kubeletVersion: '',
          machineID: '',
          operatingSystem: '',
          osImage: '',
          systemUUID: '',
        },
      },
    },
  },
  {
    kind: 'Event',
    model: 'CoreV1Event',
    collection: `/api/v1/namespaces/${ns}/events`,
    minimal: { metadata: { name: 'ev' }, involvedObject: { kind: 'Pod', name: 'pod', namespace: ns }, reason: 'Tested', message: 'm' },
    expected: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: serverMeta('ev'),
      involvedObject: { kind: 'Pod', name: 'pod', namespace: ns },
      reason: 'Tested',
      message: 'm',
      reportingComponent: '', // Event.ReportingController: no omitempty
      reportingInstance: '', // Event.ReportingInstance: no omitempty
      source: {}, // Event.Source is a struct value
    },
  },
  {
    kind: 'ReplicationController',
    model: 'V1ReplicationController',
    collection: `/api/v1/namespaces/${ns}/replicationcontrollers`,
    minimal: { metadata: { name: 'rc' }, spec: { template: template('rc') } },
    expected: {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      // SetDefaults_ReplicationController: labels from the template; rcStrategy: generation 1
      metadata: serverMeta('rc', { labels: { app: 'rc' }, generation: 1 }),
      spec: {
        replicas: 1, // replicas defaulted declaratively (+default=1)
        selector: { app: 'rc' }, // SetDefaults_ReplicationController
        template: { metadata: { labels: { app: 'rc' } }, spec: defaultedPodSpec },
      },
      status: { replicas: 0 }, // rcStrategy.PrepareForCreate; Status.Replicas has no omitempty
    },
  },
  {
    kind: 'ReplicaSet',
    model: 'V1ReplicaSet',
    collection: `/apis/apps/v1/namespaces/${ns}/replicasets`,
    minimal: { metadata: { name: 'rs' }, spec: { selector: { matchLabels: { app: 'rs' } }, template: template('rs') } },
    expected: {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: serverMeta('rs', { generation: 1 }), // rsStrategy.PrepareForCreate: generation 1
      spec: {
        replicas: 1, // SetDefaults_ReplicaSet (pkg/apis/apps/v1/defaults.go)
        selector: { matchLabels: { app: 'rs' } },
        template: { metadata: { labels: { app: 'rs' } }, spec: defaultedPodSpec },
      },
      status: { replicas: 0 }, // rsStrategy.PrepareForCreate; Status.Replicas has no omitempty
    },
  },
  {
    kind: 'Deployment',
    model: 'V1Deployment',
    collection: `/apis/apps/v1/namespaces/${ns}/deployments`,
    minimal: { metadata: { name: 'deploy' }, spec: { selector: { matchLabels: { app: 'deploy' } }, template: template('deploy') } },
    expected: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: serverMeta('deploy', { generation: 1 }), // deploymentStrategy.PrepareForCreate: generation 1
      spec: {
        progressDeadlineSeconds: 600, // SetDefaults_Deployment (pkg/apis/apps/v1/defaults.go)
        replicas: 1, // SetDefaults_Deployment
        revisionHistoryLimit: 10, // SetDefaults_Deployment
        selector: { matchLabels: { app: 'deploy' } },
        strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' }, // SetDefaults_Deployment
        template: { metadata: { labels: { app: 'deploy' } }, spec: defaultedPodSpec },
      },
      status: {}, // deploymentStrategy.PrepareForCreate; DeploymentStatus is a struct value
    },
  },
  {
    kind: 'Lease',
    model: 'V1Lease',
    collection: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
    minimal: { metadata: { name: 'lease' } },
    expected: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: serverMeta('lease'), spec: {} }, // Lease.Spec is a struct value
  },
  {
    kind: 'EndpointSlice',
    model: 'V1EndpointSlice',
    collection: `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
    minimal: { metadata: { name: 'slice' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.0.1'] }], ports: [{ port: 80 }] },
    expected: {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: serverMeta('slice', { generation: 1 }), // endpointSliceStrategy.PrepareForCreate
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.1.0.1'], conditions: {} }], // Endpoint.Conditions is a struct value
      ports: [{ name: '', port: 80, protocol: 'TCP' }], // SetDefaults_EndpointPort
    },
  },
  {
    kind: 'Role',
    model: 'V1Role',
    collection: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`,
    minimal: { metadata: { name: 'role' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: serverMeta('role'),
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    },
  },
  {
    kind: 'RoleBinding',
    model: 'V1RoleBinding',
    collection: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
    minimal: {
      metadata: { name: 'binding' },
      roleRef: { kind: 'Role', name: 'role', apiGroup: 'rbac.authorization.k8s.io' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'ServiceAccount', name: 'sa', namespace: ns },
      ],
    },
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: serverMeta('binding'),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role' },
      // SetDefaults_Subject (pkg/apis/rbac/v1/defaults.go): a User's apiGroup; a ServiceAccount's is "" (omitted)
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
        { kind: 'ServiceAccount', name: 'sa', namespace: ns },
      ],
    },
  },
  {
    kind: 'ClusterRole',
    model: 'V1ClusterRole',
    collection: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    minimal: { metadata: { name: 'system:shape' }, rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] },
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: serverMeta('system:shape', {}, false),
      rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }],
    },
  },
  {
    kind: 'ClusterRoleBinding',
    model: 'V1ClusterRoleBinding',
    collection: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    minimal: {
      metadata: { name: 'shape-binding' },
      roleRef: { kind: 'ClusterRole', name: 'system:shape', apiGroup: '' },
      subjects: [{ kind: 'Group', name: 'ops' }],
    },
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: serverMeta('shape-binding', {}, false),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:shape' }, // SetDefaults_ClusterRoleBinding
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ops' }], // SetDefaults_Subject
    },
  },
  {
    kind: 'CustomResourceDefinition',
    model: 'V1CustomResourceDefinition',
    collection: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    minimal: {
      metadata: { name: 'shapes.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'shapes', kind: 'Shape' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    },
    expected: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: serverMeta('shapes.example.com', { generation: 1 }, false), // crd strategy: generation 1
      spec: {
        conversion: { strategy: 'None' }, // SetDefaults_CustomResourceDefinitionSpec
        group: 'example.com',
        names: { kind: 'Shape', listKind: 'ShapeList', plural: 'shapes', singular: 'shape' }, // SetDefaults_CustomResourceDefinitionSpec
        scope: 'Namespaced',
        versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object' } }, served: true, storage: true }],
      },
      // crd strategy PrepareForCreate: storedVersions; AcceptedNames' kind and plural have no omitempty
      status: { acceptedNames: { kind: '', plural: '' }, storedVersions: ['v1'] },
    },
    settles: true,
  },
];

/** Runs a script of test/support/client-node with `input` on stdin; resolves to its parsed stdout. */
function runClientNode(script: string, args: string[], input = ''): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, 'support', 'client-node', script), ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${script} exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout));
    });
    child.stdin.end(input);
  });
}

/** Timestamps compared as instants: the library writes them back with milliseconds. */
function instantsOf(value: unknown): unknown {
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) return new Date(value).getTime();
  if (Array.isArray(value)) return value.map(instantsOf);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, instantsOf(v)]));
  return value;
}

describe('wire shapes of the built-in kinds', () => {
  const created = new Map<string, Record<string, unknown>>();

  it.each(CASES.map((c) => [c.kind, c] as const))('%s from a minimal manifest comes back as Kubernetes returns it', async (_kind, c) => {
    const res = await client.post<Record<string, unknown>>(c.collection, c.minimal);
    expectStatus(res, 201);
    expect(res.body).toEqual(c.expected);
    const name = (c.minimal.metadata as { name: string }).name;
    const read = await client.get<Record<string, unknown>>(`${c.collection}/${encodeURIComponent(name)}`);
    if (c.settles) expect((read.body.metadata as { uid?: string }).uid).toBe((res.body.metadata as { uid?: string }).uid);
    else expect(read.body).toEqual(res.body);
    created.set(c.kind, read.body);
  });

  it('decodes every one of them into @kubernetes/client-node’s typed model and back without loss', async () => {
    expect([...created.keys()].sort()).toEqual(CASES.map((c) => c.kind).sort());
    const input = CASES.map((c) => ({ type: c.model, object: created.get(c.kind) }));
    const output = (await runClientNode('round-trip.mjs', [], JSON.stringify(input))) as Array<{ type: string; model: string; object: unknown }>;
    output.forEach((entry, i) => {
      expect(entry.model).toBe(CASES[i].model);
      expect({ kind: CASES[i].kind, object: instantsOf(entry.object) }).toEqual({ kind: CASES[i].kind, object: instantsOf(input[i].object) });
    });
  }, 30_000);
});

describe('@kubernetes/client-node’s typed APIs', () => {
  it('CoordinationV1Api, RbacAuthorizationV1Api and ApiextensionsV1Api create, read, replace, list and delete', async () => {
    await createNamespace(client, 'typed-apis');
    const out = (await runClientNode('typed-apis.mjs', [server.kubeconfig, 'typed-apis'])) as Record<string, unknown>;
    expect(out).toEqual({
      leaseCreated: { apiVersion: 'coordination.k8s.io/v1', holder: 'me', renewTime: '2026-01-01T00:00:00.123Z' },
      leaseReplaced: { holder: 'you', renewTime: '2026-01-01T00:00:00.123Z' },
      leaseList: { apiVersion: 'coordination.k8s.io/v1', kind: 'LeaseList', names: ['typed'] },
      leaseDeleted: true,
      roleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }] },
      roles: [{ apiVersion: 'rbac.authorization.k8s.io/v1', name: 'typed-reader', rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] }],
      clusterRole: { kind: 'ClusterRole', rules: [{ nonResourceURLs: ['/version'], verbs: ['get'] }] },
      rbacDeleted: true,
      crdCreated: {
        apiVersion: 'apiextensions.k8s.io/v1',
        names: { kind: 'Gizmo', listKind: 'GizmoList', plural: 'gizmos', singular: 'gizmo' },
        storedVersions: ['v1'],
      },
      crdEstablished: true,
      crdList: expect.arrayContaining(['gizmos.example.com']),
      crdDeleted: true,
    });
    await eventually(async () => expectStatus(await client.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com'), 404), 15_000);
  }, 60_000);
});
