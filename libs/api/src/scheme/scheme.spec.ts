import {
  buildTable,
  builtinScheme,
  defineKind,
  Scheme,
  compareVersions,
  configMapDefinition,
  deploymentDefinition,
  endpointsDefinition,
  eventDefinition,
  humanDuration,
  leaseDefinition,
  namespaceDefinition,
  nodeDefinition,
  openApiV3Document,
  openApiV3Index,
  podDefinition,
  removedApiMessage,
  replicaSetDefinition,
  secretDefinition,
  serviceAccountDefinition,
  serviceDefinition,
  versionTrack,
  type ApiObject,
  type KindDefinition,
} from '../index';

const now = new Date('2024-01-02T00:00:00Z');
const created = '2024-01-01T23:55:00Z';

function cells(def: KindDefinition, obj: object): Record<string, unknown> {
  const table = buildTable(def, [obj as ApiObject], { now });
  return Object.fromEntries(table.columnDefinitions.map((c, i) => [c.name, table.rows[0].cells[i]]));
}

describe('scheme', () => {
  const scheme = builtinScheme();

  it('maps kinds, resources and short names', () => {
    expect(scheme.byResource({ group: '', version: 'v1', resource: 'pods' })).toBe(podDefinition);
    expect(scheme.byResource({ group: 'apps', version: 'v1', resource: 'deployments' })).toBe(deploymentDefinition);
    expect(scheme.byGvk({ group: 'coordination.svc.io', version: 'v1', kind: 'Lease' })).toBe(leaseDefinition);
    expect(scheme.byApiVersionKind('apps/v1', 'ReplicaSet')).toBe(replicaSetDefinition);
    expect(scheme.byApiVersionKind('v1', 'Endpoints')).toBe(endpointsDefinition);
    expect(scheme.byKind('Service')).toEqual([serviceDefinition]);
    const short = Object.fromEntries(
      ['po', 'svc', 'ep', 'cm', 'ns', 'no', 'ev', 'sa', 'rs', 'deploy', 'crd', 'crds', 'sts', 'ds', 'cj', 'pc'].map((s) => [
        s,
        scheme.byShortName(s).map((d) => d.resource),
      ]),
    );
    expect(short).toEqual({
      po: ['pods'],
      svc: ['services'],
      ep: ['endpoints'],
      cm: ['configmaps'],
      ns: ['namespaces'],
      no: ['nodes'],
      // core/v1's and events.k8s.io's, as in Kubernetes; discovery's group order makes kubectl pick core's.
      ev: ['events', 'events'],
      sa: ['serviceaccounts'],
      rs: ['replicasets'],
      deploy: ['deployments'],
      crd: ['customresourcedefinitions'],
      crds: ['customresourcedefinitions'],
      sts: ['statefulsets'],
      ds: ['daemonsets'],
      cj: ['cronjobs'],
      pc: ['priorityclasses'],
    });
    expect(scheme.resolve('Deployment').map((d) => d.resource)).toEqual(['deployments']);
    expect(scheme.resolve('deployments.apps').map((d) => d.resource)).toEqual(['deployments']);
    expect(scheme.resolve('pod').map((d) => d.resource)).toEqual(['pods']);
    expect(scheme.resolve('nothing')).toEqual([]);
    expect(
      scheme
        .byCategory('all')
        .map((d) => d.resource)
        .sort(),
    ).toEqual([
      'cronjobs',
      'daemonsets',
      'deployments',
      'horizontalpodautoscalers',
      'jobs',
      'pods',
      'replicasets',
      'replicationcontrollers',
      'services',
      'statefulsets',
    ]);
  });

  it('knows scope, subresources and create-on-update of each kind', () => {
    const facts = Object.fromEntries(
      scheme.all().map((d) => [
        d.kind,
        [
          d.namespaced,
          d.allowCreateOnUpdate,
          Object.keys(d.subresources)
            .filter((k) => d.subresources[k as 'status'])
            .join(','),
        ],
      ]),
    );
    expect(facts).toEqual({
      APIService: [false, false, 'status'],
      Pod: [true, false, 'status'],
      PodDisruptionBudget: [true, false, 'status'],
      ResourceQuota: [true, false, 'status'],
      LimitRange: [true, true, ''],
      HorizontalPodAutoscaler: [true, false, 'status'],
      Service: [true, true, 'status'],
      Endpoints: [true, true, ''],
      ConfigMap: [true, false, ''],
      Secret: [true, false, ''],
      Event: [true, true, ''],
      Node: [false, false, 'status'],
      Namespace: [false, false, 'status'],
      ServiceAccount: [true, false, ''],
      ReplicaSet: [true, false, 'status,scale'],
      Deployment: [true, false, 'status,scale'],
      Lease: [true, true, ''],
      EndpointSlice: [true, false, ''],
      CustomResourceDefinition: [false, false, 'status'],
      ReplicationController: [true, false, 'status,scale'],
      Role: [true, true, ''],
      ClusterRole: [false, true, ''],
      RoleBinding: [true, true, ''],
      ClusterRoleBinding: [false, true, ''],
      ValidatingWebhookConfiguration: [false, false, ''],
      MutatingWebhookConfiguration: [false, false, ''],
      ValidatingAdmissionPolicy: [false, false, 'status'],
      ValidatingAdmissionPolicyBinding: [false, false, ''],
      PodTemplate: [true, false, ''],
      StatefulSet: [true, false, 'status,scale'],
      DaemonSet: [true, false, 'status'],
      ControllerRevision: [true, false, ''],
      Job: [true, false, 'status'],
      CronJob: [true, false, 'status'],
      PriorityClass: [false, false, ''],
      PersistentVolume: [false, false, 'status'],
      PersistentVolumeClaim: [true, false, 'status'],
      StorageClass: [false, false, ''],
      CSIDriver: [false, false, ''],
      CSINode: [false, false, ''],
      CSIStorageCapacity: [true, false, ''],
      VolumeAttachment: [false, false, 'status'],
      CertificateSigningRequest: [false, false, 'status'],
      IngressClass: [false, false, ''],
      Ingress: [true, false, 'status'],
      NetworkPolicy: [true, false, ''],
      RuntimeClass: [false, false, ''],
      FlowSchema: [false, false, 'status'],
      PriorityLevelConfiguration: [false, false, 'status'],
    });
    expect(deploymentDefinition.subresources.scale).toEqual({
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.spec.selector',
    });
    expect(podDefinition.listKind).toBe('PodList');
    expect(endpointsDefinition.singular).toBe('endpoints');
  });

  it('lists groups with their preferred versions', () => {
    expect(scheme.groups().map((g) => [g.name, g.preferredVersion.groupVersion])).toEqual([
      ['', 'v1'],
      ['admissionregistration.svc.io', 'admissionregistration.svc.io/v1'],
      ['apiextensions.svc.io', 'apiextensions.svc.io/v1'],
      ['apiregistration.svc.io', 'apiregistration.svc.io/v1'],
      ['apps', 'apps/v1'],
      ['autoscaling', 'autoscaling/v2'],
      ['batch', 'batch/v1'],
      ['certificates.svc.io', 'certificates.svc.io/v1'],
      ['coordination.svc.io', 'coordination.svc.io/v1'],
      ['discovery.svc.io', 'discovery.svc.io/v1'],
      ['events.svc.io', 'events.svc.io/v1'],
      ['flowcontrol.apiserver.svc.io', 'flowcontrol.apiserver.svc.io/v1'],
      ['networking.svc.io', 'networking.svc.io/v1'],
      ['node.svc.io', 'node.svc.io/v1'],
      ['policy', 'policy/v1'],
      ['rbac.authorization.svc.io', 'rbac.authorization.svc.io/v1'],
      ['scheduling.svc.io', 'scheduling.svc.io/v1'],
      ['storage.svc.io', 'storage.svc.io/v1'],
      // The Kubernetes names of the specification's groups, after all of them.
      ['admissionregistration.k8s.io', 'admissionregistration.k8s.io/v1'],
      ['apiextensions.k8s.io', 'apiextensions.k8s.io/v1'],
      ['apiregistration.k8s.io', 'apiregistration.k8s.io/v1'],
      ['certificates.k8s.io', 'certificates.k8s.io/v1'],
      ['coordination.k8s.io', 'coordination.k8s.io/v1'],
      ['discovery.k8s.io', 'discovery.k8s.io/v1'],
      ['events.k8s.io', 'events.k8s.io/v1'],
      ['flowcontrol.apiserver.k8s.io', 'flowcontrol.apiserver.k8s.io/v1'],
      ['networking.k8s.io', 'networking.k8s.io/v1'],
      ['node.k8s.io', 'node.k8s.io/v1'],
      ['rbac.authorization.k8s.io', 'rbac.authorization.k8s.io/v1'],
      ['scheduling.k8s.io', 'scheduling.k8s.io/v1'],
      ['storage.k8s.io', 'storage.k8s.io/v1'],
    ]);
    expect(scheme.preferredVersion('apps')).toBe('v1');
  });

  it('orders versions and names their tracks', () => {
    expect(versionTrack('v1')).toBe('GA');
    expect(versionTrack('v1beta1')).toBe('Beta');
    expect(versionTrack('v2alpha3')).toBe('Alpha');
    expect(versionTrack('latest')).toBeUndefined();
    expect(['v1alpha1', 'foo', 'v1beta1', 'v1', 'v2beta1', 'v2', 'v11alpha2', 'bar'].sort(compareVersions)).toEqual([
      'v2',
      'v1',
      'v2beta1',
      'v1beta1',
      'v11alpha2',
      'v1alpha1',
      'bar',
      'foo',
    ]);
  });

  it('answers removed versions with guidance, but not served ones', () => {
    const ext = scheme.removedVersion('extensions', 'v1beta1', 'deployments');
    expect(ext).toMatchObject({ replacement: 'apps/v1', removedIn: '1.16', kinds: ['Deployment'] });
    expect(removedApiMessage(ext!, 'deployments')).toMatch(/^Deployment extensions\/v1beta1 was removed in 1\.16; use apps\/v1/);
    expect(scheme.removedVersion('coordination.svc.io', 'v1beta1', 'leases')).toMatchObject({ replacement: 'coordination.svc.io/v1', removedIn: '1.22' });
    expect(scheme.removedVersion('apiextensions.svc.io', 'v1beta1')).toMatchObject({ kinds: ['CustomResourceDefinition'] });
    expect(removedApiMessage(scheme.removedVersion('policy', 'v1beta1', 'podsecuritypolicies')!)).toMatch(/no replacement|pod security admission/);
    // Removed after the specification's 1.25, up to the release this server reports.
    expect(scheme.removedVersion('autoscaling', 'v2beta2', 'horizontalpodautoscalers')).toMatchObject({ replacement: 'autoscaling/v2', removedIn: '1.26' });
    expect(scheme.removedVersion('flowcontrol.apiserver.k8s.io', 'v1beta3', 'flowschemas')).toMatchObject({
      replacement: 'flowcontrol.apiserver.svc.io/v1',
      removedIn: '1.32',
    });
    expect(scheme.removedVersion('apps', 'v1', 'deployments')).toBeUndefined();
    expect(scheme.deprecation(deploymentDefinition)).toBeUndefined();
  });

  it('gives every kind the metadata field selectors and its own ones', () => {
    const pod = {
      metadata: { name: 'p', namespace: 'ns' },
      spec: { nodeName: 'n1', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'sa', containers: [] },
      status: { phase: 'Running', podIP: '10.0.0.1', nominatedNodeName: 'n2' },
    } as ApiObject;
    const read = (def: KindDefinition, obj: object) => Object.fromEntries(Object.entries(def.fieldSelectors).map(([k, get]) => [k, get(obj as ApiObject)]));
    expect(read(podDefinition, pod)).toEqual({
      'metadata.name': 'p',
      'metadata.namespace': 'ns',
      'spec.nodeName': 'n1',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': 'sa',
      'spec.hostNetwork': 'false',
      'status.phase': 'Running',
      'status.podIP': '10.0.0.1',
      'status.nominatedNodeName': 'n2',
    });
    const event = {
      metadata: { name: 'e', namespace: 'ns' },
      involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'u', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{c}' },
      reason: 'Started',
      reportingComponent: 'node-agent',
      source: { component: 'node-agent', host: 'n1' },
      type: 'Normal',
    };
    expect(read(eventDefinition, event)).toEqual({
      'metadata.name': 'e',
      'metadata.namespace': 'ns',
      'involvedObject.kind': 'Pod',
      'involvedObject.namespace': 'ns',
      'involvedObject.name': 'p',
      'involvedObject.uid': 'u',
      'involvedObject.apiVersion': 'v1',
      'involvedObject.resourceVersion': '7',
      'involvedObject.fieldPath': 'spec.containers{c}',
      reason: 'Started',
      reportingComponent: 'node-agent',
      source: 'node-agent',
      type: 'Normal',
    });
    expect(secretDefinition.fieldSelectors.type({ type: 'Opaque' })).toBe('Opaque');
    expect(namespaceDefinition.fieldSelectors['status.phase']({ status: { phase: 'Terminating' } })).toBe('Terminating');
    expect(nodeDefinition.fieldSelectors['spec.unschedulable']({ spec: { unschedulable: true } })).toBe('true');
    expect(nodeDefinition.fieldSelectors['spec.unschedulable']({})).toBe('false');
    expect(nodeDefinition.fieldSelectors['metadata.namespace']({ metadata: { name: 'n' } })).toBe('');
    expect(replicaSetDefinition.fieldSelectors['status.replicas']({ status: { replicas: 3 } })).toBe('3');
  });
});

describe('tables', () => {
  it('prints a Pod the way kubectl get shows it', () => {
    const pod = {
      metadata: { name: 'web-1', creationTimestamp: created },
      spec: {
        nodeName: 'node-1',
        containers: [
          { name: 'a', image: 'x' },
          { name: 'b', image: 'y' },
        ],
      },
      status: {
        phase: 'Running',
        podIP: '10.1.0.5',
        podIPs: [{ ip: '10.1.0.5' }],
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: '2024-01-01T23:59:00Z' } } },
          { name: 'b', ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    };
    expect(cells(podDefinition, pod)).toEqual({
      Name: 'web-1',
      Ready: '1/2',
      Status: 'CrashLoopBackOff',
      Restarts: '3 (60s ago)',
      Age: '5m',
      IP: '10.1.0.5',
      Node: 'node-1',
      'Nominated Node': '<none>',
      'Readiness Gates': '<none>',
    });
    const table = buildTable(podDefinition, [pod], { now });
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.svc.io/v1' });
    expect(table.columnDefinitions.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(['IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    expect(table.rows[0].object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.svc.io/v1', metadata: pod.metadata });
  });

  it('summarizes pod states as kubectl does', () => {
    const status = (s: object, extra: object = {}) =>
      cells(podDefinition, {
        metadata: { name: 'p', creationTimestamp: created, ...extra },
        spec: { initContainers: [{ name: 'i' }], containers: [{ name: 'c' }] },
        status: s,
      }).Status;
    expect(status({ phase: 'Pending' })).toBe('Pending');
    expect(status({ phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { waiting: { reason: 'PodInitializing' } } }] })).toBe('Init:0/1');
    expect(status({ phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { terminated: { exitCode: 2 } } }] })).toBe('Init:ExitCode:2');
    expect(status({ phase: 'Succeeded', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] })).toBe('Completed');
    expect(status({ phase: 'Running', reason: 'NodeLost' }, { deletionTimestamp: created })).toBe('Unknown');
    expect(status({ phase: 'Running' }, { deletionTimestamp: created })).toBe('Terminating');
  });

  it('prints a Deployment and a ReplicaSet', () => {
    const d = {
      metadata: { name: 'web', creationTimestamp: '2023-12-30T00:00:00Z' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } } },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    expect(cells(deploymentDefinition, d)).toEqual({
      Name: 'web',
      Ready: '2/3',
      'Up-to-date': 3,
      Available: 2,
      Age: '3d',
      Containers: 'nginx',
      Images: 'nginx:1.25',
      Selector: 'app=web',
    });
    expect(cells(replicaSetDefinition, { ...d, status: { replicas: 3, readyReplicas: 1 } })).toMatchObject({ Desired: 3, Current: 3, Ready: 1, Age: '3d' });
  });

  it('prints Services, Namespaces, Nodes and the small kinds', () => {
    const base = { metadata: { name: 'x', creationTimestamp: created } };
    expect(
      cells(serviceDefinition, {
        ...base,
        spec: {
          type: 'NodePort',
          clusterIP: '10.96.0.1',
          ports: [
            { port: 80, nodePort: 30080, protocol: 'TCP' },
            { port: 53, protocol: 'UDP' },
          ],
          selector: { b: '2', a: '1' },
        },
      }),
    ).toEqual({
      Name: 'x',
      Type: 'NodePort',
      'Cluster-IP': '10.96.0.1',
      'External-IP': '<none>',
      'Port(s)': '80:30080/TCP,53/UDP',
      Age: '5m',
      Selector: 'a=1,b=2',
    });
    expect(cells(serviceDefinition, { ...base, spec: { type: 'LoadBalancer', ports: [] } })['External-IP']).toBe('<pending>');
    expect(cells(serviceDefinition, { ...base, spec: { type: 'ExternalName', externalName: 'db.example.com' } })).toMatchObject({
      'External-IP': 'db.example.com',
      'Port(s)': '<none>',
    });
    expect(cells(namespaceDefinition, { ...base, status: { phase: 'Active' } })).toEqual({ Name: 'x', Status: 'Active', Age: '5m' });
    expect(
      cells(nodeDefinition, {
        ...base,
        metadata: { ...base.metadata, labels: { 'node-role.svc.io/control-plane': '' } },
        spec: { unschedulable: true },
        status: {
          conditions: [{ type: 'Ready', status: 'True' }],
          nodeInfo: { kubeletVersion: 'v1.25.0' },
          addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
        },
      }),
    ).toMatchObject({ Status: 'Ready,SchedulingDisabled', Roles: 'control-plane', Version: 'v1.25.0', 'Internal-IP': '10.0.0.1', 'External-IP': '<none>' });
    expect(cells(configMapDefinition, { ...base, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } })).toEqual({ Name: 'x', Data: 3, Age: '5m' });
    expect(cells(secretDefinition, { ...base, type: 'Opaque', data: { a: 'AA==' } })).toEqual({ Name: 'x', Type: 'Opaque', Data: 1, Age: '5m' });
    expect(
      cells(endpointsDefinition, {
        ...base,
        subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3' }, { ip: '10.0.0.4' }], ports: [{ port: 80 }] }],
      }).Endpoints,
    ).toBe('10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 1 more...');
    expect(cells(endpointsDefinition, base).Endpoints).toBe('<none>');
    expect(cells(leaseDefinition, { ...base, spec: { holderIdentity: 'cm-1' } })).toEqual({ Name: 'x', Holder: 'cm-1', Age: '5m' });
    expect(cells(serviceAccountDefinition, { ...base, secrets: [{ name: 't' }] })).toEqual({ Name: 'x', Secrets: 1, Age: '5m' });
    expect(
      cells(eventDefinition, {
        ...base,
        involvedObject: { kind: 'Pod', name: 'web-1' },
        type: 'Warning',
        reason: 'BackOff',
        message: ' Back-off restarting ',
        firstTimestamp: '2024-01-01T23:00:00Z',
        lastTimestamp: '2024-01-01T23:59:30Z',
        count: 7,
        source: { component: 'node-agent', host: 'node-1' },
      }),
    ).toMatchObject({
      'Last Seen': '30s',
      Type: 'Warning',
      Reason: 'BackOff',
      Object: 'pod/web-1',
      Message: 'Back-off restarting',
      'First Seen': '60m',
      Count: 7,
      Source: 'node-agent, node-1',
    });
  });

  it('falls back to Name and Created At for kinds without columns', () => {
    const crdDef = builtinScheme().byShortName('crd')[0];
    const table = buildTable(crdDef, [{ metadata: { name: 'widgets.example.com', creationTimestamp: created } }], { now, includeObject: 'Object' });
    expect(table.columnDefinitions).toEqual([
      expect.objectContaining({ name: 'Name', type: 'string', format: 'name' }),
      expect.objectContaining({ name: 'Created At', type: 'date' }),
    ]);
    expect(table.rows[0].cells).toEqual(['widgets.example.com', created]);
    expect(table.rows[0].object).toEqual({ metadata: { name: 'widgets.example.com', creationTimestamp: created } });
  });

  it('prints ages like Kubernetes', () => {
    const s = 1000;
    const m = 60 * s;
    const h = 60 * m;
    const d = 24 * h;
    expect(
      [
        -5 * s,
        -1 * s,
        0,
        119 * s,
        2 * m,
        3 * m + 5 * s,
        10 * m,
        179 * m,
        3 * h,
        7 * h + 59 * m,
        8 * h,
        47 * h,
        2 * d,
        3 * d + 4 * h,
        8 * d,
        400 * d,
        2 * 365 * d + 10 * d,
        9 * 365 * d,
      ].map(humanDuration),
    ).toEqual(['<invalid>', '0s', '0s', '119s', '2m', '3m5s', '10m', '179m', '3h', '7h59m', '8h', '47h', '2d', '3d4h', '8d', '400d', '2y10d', '9y']);
  });
});

describe('OpenAPI', () => {
  const scheme = builtinScheme();

  it('serves each group version from the kinds’ schemas', () => {
    const doc = openApiV3Document(scheme, 'apps', 'v1');
    const deployment = doc.components.schemas['io.svc.api.apps.v1.Deployment'];
    expect(deployment['x-svc-group-version-kind']).toEqual([{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    expect(JSON.stringify(doc)).toContain('"x-svc-list-map-keys":["containerPort","protocol"]');
    expect(doc.components.schemas['io.svc.api.apps.v1.DeploymentList']).toBeDefined();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/apis/apps/v1/namespaces/{namespace}/deployments',
        '/apis/apps/v1/namespaces/{namespace}/deployments/{name}',
        '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status',
        '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale',
        '/apis/apps/v1/deployments',
      ]),
    );
    expect(Object.keys(openApiV3Document(scheme, '', 'v1').paths)).toEqual(
      expect.arrayContaining(['/api/v1/nodes/{name}', '/api/v1/namespaces/{namespace}/pods']),
    );
    expect(openApiV3Index(scheme).paths).toEqual({
      'api/v1': { serverRelativeURL: '/openapi/v3/api/v1' },
      'apis/admissionregistration.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/admissionregistration.svc.io/v1' },
      'apis/apiextensions.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/apiextensions.svc.io/v1' },
      'apis/apiregistration.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/apiregistration.svc.io/v1' },
      'apis/apps/v1': { serverRelativeURL: '/openapi/v3/apis/apps/v1' },
      'apis/autoscaling/v1': { serverRelativeURL: '/openapi/v3/apis/autoscaling/v1' },
      'apis/autoscaling/v2': { serverRelativeURL: '/openapi/v3/apis/autoscaling/v2' },
      'apis/batch/v1': { serverRelativeURL: '/openapi/v3/apis/batch/v1' },
      'apis/certificates.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/certificates.svc.io/v1' },
      'apis/coordination.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/coordination.svc.io/v1' },
      'apis/discovery.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/discovery.svc.io/v1' },
      'apis/events.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/events.svc.io/v1' },
      'apis/networking.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/networking.svc.io/v1' },
      'apis/node.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/node.svc.io/v1' },
      'apis/flowcontrol.apiserver.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/flowcontrol.apiserver.svc.io/v1' },
      'apis/policy/v1': { serverRelativeURL: '/openapi/v3/apis/policy/v1' },
      'apis/rbac.authorization.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/rbac.authorization.svc.io/v1' },
      'apis/scheduling.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/scheduling.svc.io/v1' },
      'apis/storage.svc.io/v1': { serverRelativeURL: '/openapi/v3/apis/storage.svc.io/v1' },
      'apis/admissionregistration.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/admissionregistration.k8s.io/v1' },
      'apis/apiextensions.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/apiextensions.k8s.io/v1' },
      'apis/apiregistration.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/apiregistration.k8s.io/v1' },
      'apis/certificates.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/certificates.k8s.io/v1' },
      'apis/coordination.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/coordination.k8s.io/v1' },
      'apis/discovery.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/discovery.k8s.io/v1' },
      'apis/events.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/events.k8s.io/v1' },
      'apis/networking.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/networking.k8s.io/v1' },
      'apis/node.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/node.k8s.io/v1' },
      'apis/flowcontrol.apiserver.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/flowcontrol.apiserver.k8s.io/v1' },
      'apis/rbac.authorization.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/rbac.authorization.k8s.io/v1' },
      'apis/scheduling.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/scheduling.k8s.io/v1' },
      'apis/storage.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/storage.k8s.io/v1' },
    });
    const twin = openApiV3Document(scheme, 'coordination.k8s.io', 'v1');
    expect(twin.components.schemas['io.k8s.api.coordination.v1.Lease']['x-svc-group-version-kind']).toEqual([
      { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' },
    ]);
    expect(Object.keys(twin.paths)).toContain('/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}');
  });

  it('serves each svc.io group under its k8s.io name too, from the same definitions', () => {
    const lease = scheme.byResource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' });
    expect(lease).toMatchObject({ group: 'coordination.k8s.io', kind: 'Lease', aliasOf: leaseDefinition });
    expect(scheme.byResource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' })).toBe(lease);
    expect(scheme.byApiVersionKind('rbac.authorization.k8s.io/v1', 'Role')?.aliasOf?.group).toBe('rbac.authorization.svc.io');
    expect(scheme.resourcesIn('rbac.authorization.k8s.io', 'v1').map((d) => d.kind)).toEqual(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
    expect(scheme.byResource({ group: 'apps.k8s.io', version: 'v1', resource: 'deployments' })).toBeUndefined();
    expect(scheme.isTwinGroup('coordination.k8s.io')).toBe(true);
    expect(scheme.isTwinGroup('coordination.svc.io')).toBe(false);
    // A group registered under its k8s.io name (a CRD of gateway.networking.k8s.io) is served as registered.
    const own = new Scheme();
    own.register(defineKind({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', resource: 'leases', namespaced: true, schema: { type: 'object' } }));
    own.register(leaseDefinition);
    expect(own.byResource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' })?.aliasOf).toBeUndefined();
    expect(own.groups().map((g) => g.name)).toEqual(['coordination.k8s.io', 'coordination.svc.io']);
    expect(() => own.register(lease!)).toThrow(/twin/);
  });
});
