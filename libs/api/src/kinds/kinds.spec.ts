import { parse } from 'yaml';
import type { Pod, Volume, Deployment, Service, List, PodList, WatchEvent, Status, Table, CustomResourceDefinition, Container } from '../index';
import {
  builtinScheme,
  compileKind,
  configMapDefinition,
  customResourceDefinitionDefinition,
  roleDefinition,
  replicationControllerDefinition,
  clusterRoleDefinition,
  roleBindingDefinition,
  clusterRoleBindingDefinition,
  deploymentDefinition,
  endpointsDefinition,
  eventDefinition,
  leaseDefinition,
  podDisruptionBudgetDefinition,
  endpointSliceDefinition,
  mutatingWebhookConfigurationDefinition,
  namespaceDefinition,
  nodeDefinition,
  podDefinition,
  replicaSetDefinition,
  secretDefinition,
  serviceAccountDefinition,
  serviceDefinition,
  validatingAdmissionPolicyBindingDefinition,
  validatingAdmissionPolicyDefinition,
  validatingWebhookConfigurationDefinition,
  jobDefinition,
  cronJobDefinition,
  statefulSetDefinition,
  daemonSetDefinition,
  controllerRevisionDefinition,
  podTemplateDefinition,
  priorityClassDefinition,
  runtimeClassDefinition,
  eventsEventDefinition,
  apiServiceDefinition,
  flowSchemaDefinition,
  priorityLevelConfigurationDefinition,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  persistentVolumeDefinition,
  persistentVolumeClaimDefinition,
  storageClassDefinition,
  csiDriverDefinition,
  csiNodeDefinition,
  csiStorageCapacityDefinition,
  volumeAttachmentDefinition,
  ingressDefinition,
  ingressClassDefinition,
  networkPolicyDefinition,
  resourceQuotaDefinition,
  limitRangeDefinition,
  certificateSigningRequestDefinition,
  horizontalPodAutoscalerDefinition,
  horizontalPodAutoscalerV1Definition,
  type FieldError,
  type KindDefinition,
} from '../index';

/** Defaults, then validation and unknown fields, the order the API server uses. */
function check(def: KindDefinition, obj: unknown): { errors: FieldError[]; unknown: string[] } {
  const k = compileKind(def);
  const copy = structuredClone(obj);
  const unknown = k.unknownFields(copy);
  k.default(copy);
  return { errors: k.validate(copy), unknown };
}

function fields(errors: FieldError[]): string[] {
  return errors.map((e) => `${e.field} ${e.type}`);
}

const kubectlDeployment = parse(`
apiVersion: apps/v1
kind: Deployment
metadata:
  creationTimestamp: null
  labels:
    app: web
  name: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  strategy: {}
  template:
    metadata:
      creationTimestamp: null
      labels:
        app: web
    spec:
      containers:
      - image: nginx
        name: nginx
        resources: {}
status: {}
`);

const fullPod = parse(`
apiVersion: v1
kind: Pod
metadata:
  name: everything
  namespace: default
  generateName: every-
  labels: { app.kubernetes.io/name: web, tier: "" }
  annotations: { example.com/note: "free text" }
  finalizers: [example.com/cleanup]
  ownerReferences:
  - { apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: "1234", controller: true, blockOwnerDeletion: true }
spec:
  initContainers:
  - name: init
    image: busybox:1.36
    command: [sh, -c, "true"]
  containers:
  - name: app
    image: registry.example.com:5000/team/app@sha256:abcdef
    command: [/app]
    args: [--port=8080]
    workingDir: /srv
    ports:
    - { name: http, containerPort: 8080, protocol: TCP, hostPort: 80, hostIP: 0.0.0.0 }
    - { containerPort: 53, protocol: UDP }
    env:
    - { name: PLAIN, value: x }
    - name: POD_NAME
      valueFrom: { fieldRef: { fieldPath: metadata.name } }
    - name: PASSWORD
      valueFrom: { secretKeyRef: { name: creds, key: password, optional: false } }
    - name: MODE
      valueFrom: { configMapKeyRef: { name: settings, key: mode } }
    - name: CPU_LIMIT
      valueFrom: { resourceFieldRef: { containerName: app, resource: limits.cpu, divisor: 1m } }
    envFrom:
    - configMapRef: { name: settings }
      prefix: CFG_
    - secretRef: { name: creds, optional: true }
    resources:
      limits: { cpu: 500m, memory: 128Mi, nvidia.com/gpu: 1 }
      requests: { cpu: 0.25, memory: "64Mi" }
    volumeMounts:
    - { name: data, mountPath: /data }
    - { name: config, mountPath: /etc/app, readOnly: true, subPath: app.conf }
    livenessProbe:
      httpGet: { path: /healthz, port: http, scheme: HTTP, httpHeaders: [{ name: X-Probe, value: "1" }] }
      initialDelaySeconds: 5
      periodSeconds: 10
      timeoutSeconds: 2
      failureThreshold: 3
    readinessProbe:
      tcpSocket: { port: 8080 }
    startupProbe:
      exec: { command: [cat, /tmp/ready] }
      failureThreshold: 30
    lifecycle:
      preStop: { exec: { command: [sleep, "5"] } }
      postStart: { httpGet: { port: 8080, path: /started } }
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: FallbackToLogsOnError
    imagePullPolicy: IfNotPresent
    securityContext:
      runAsUser: 1000
      runAsNonRoot: true
      readOnlyRootFilesystem: true
      allowPrivilegeEscalation: false
      capabilities: { drop: [ALL], add: [NET_BIND_SERVICE] }
      seccompProfile: { type: RuntimeDefault }
    stdin: false
    tty: false
  - name: grpc
    image: grpc-server
    livenessProbe:
      grpc: { port: 9090 }
  volumes:
  - { name: data, emptyDir: { sizeLimit: 1Gi } }
  - { name: config, configMap: { name: settings, items: [{ key: app.conf, path: app.conf }], defaultMode: 420 } }
  - { name: creds, secret: { secretName: creds } }
  - { name: host, hostPath: { path: /var/log, type: Directory } }
  - { name: claim, persistentVolumeClaim: { claimName: data-0 } }
  - name: combined
    projected:
      sources:
      - serviceAccountToken: { path: token, expirationSeconds: 3600, audience: api }
      - configMap: { name: settings }
      - downwardAPI: { items: [{ path: labels, fieldRef: { fieldPath: metadata.labels } }] }
  - { name: podinfo, downwardAPI: { items: [{ path: name, fieldRef: { fieldPath: metadata.name } }] } }
  restartPolicy: Always
  terminationGracePeriodSeconds: 45
  activeDeadlineSeconds: 3600
  dnsPolicy: ClusterFirst
  nodeSelector: { disktype: ssd }
  serviceAccountName: app
  serviceAccount: app
  automountServiceAccountToken: false
  nodeName: node-1
  hostNetwork: false
  hostPID: false
  hostIPC: false
  securityContext: { fsGroup: 2000, runAsGroup: 3000, sysctls: [{ name: net.core.somaxconn, value: "1024" }] }
  imagePullSecrets: [{ name: registry }]
  hostname: app-0
  subdomain: apps
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{ key: zone, operator: In, values: [a, b] }]
  schedulerName: default-scheduler
  tolerations:
  - { key: dedicated, operator: Equal, value: app, effect: NoSchedule }
  - { operator: Exists, effect: NoExecute, tolerationSeconds: 300 }
  priorityClassName: high
  priority: 1000
  readinessGates: [{ conditionType: example.com/ready }]
  enableServiceLinks: false
  preemptionPolicy: PreemptLowerPriority
  overhead: { cpu: 10m }
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector: { matchLabels: { app: web } }
status:
  phase: Running
  conditions:
  - { type: Ready, status: "True", lastProbeTime: null, lastTransitionTime: "2024-01-01T00:00:00Z" }
  hostIP: 10.0.0.1
  podIP: 10.1.0.5
  podIPs: [{ ip: 10.1.0.5 }]
  startTime: "2024-01-01T00:00:00Z"
  qosClass: Burstable
  message: ""
  reason: ""
  nominatedNodeName: ""
  containerStatuses:
  - name: app
    ready: true
    restartCount: 2
    image: app
    imageID: docker://sha256:1
    containerID: containerd://abc
    started: true
    state: { running: { startedAt: "2024-01-01T00:00:01Z" } }
    lastState: { terminated: { exitCode: 137, reason: OOMKilled, finishedAt: "2024-01-01T00:00:00Z" } }
`);

function validObjects(): [KindDefinition, unknown][] {
  return [
    [deploymentDefinition, kubectlDeployment],
    [podDefinition, fullPod],
    [
      podDefinition,
      parse(`
apiVersion: v1
kind: Pod
metadata: { creationTimestamp: null, labels: { run: nginx }, name: nginx }
spec:
  containers: [{ image: nginx, name: nginx, resources: {} }]
  dnsPolicy: ClusterFirst
  restartPolicy: Always
status: {}
`),
    ],
    [
      serviceDefinition,
      parse(`
apiVersion: v1
kind: Service
metadata: { creationTimestamp: null, labels: { app: my-svc }, name: my-svc }
spec:
  ports: [{ name: 80-8080, port: 80, protocol: TCP, targetPort: 8080 }]
  selector: { app: my-svc }
  type: ClusterIP
status: { loadBalancer: {} }
`),
    ],
    [
      serviceDefinition,
      {
        metadata: { name: 'lb' },
        spec: {
          type: 'LoadBalancer',
          ports: [
            { name: 'http', port: 80, targetPort: 'http', nodePort: 30080 },
            { name: 'dns', port: 53, protocol: 'UDP' },
          ],
          clusterIP: '10.96.0.10',
          clusterIPs: ['10.96.0.10'],
          ipFamilies: ['IPv4'],
          ipFamilyPolicy: 'SingleStack',
          sessionAffinity: 'ClientIP',
          externalTrafficPolicy: 'Local',
          internalTrafficPolicy: 'Cluster',
          publishNotReadyAddresses: true,
          externalIPs: ['192.0.2.1'],
        },
        status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } },
      },
    ],
    [serviceDefinition, { metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'db.example.com' } }],
    [
      endpointsDefinition,
      {
        metadata: { name: 'web' },
        subsets: [
          {
            addresses: [{ ip: '10.1.0.5', nodeName: 'node-1', targetRef: { kind: 'Pod', name: 'web-1', namespace: 'default', uid: 'u' } }],
            notReadyAddresses: [{ ip: '10.1.0.6', hostname: 'web-2' }],
            ports: [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'http' }],
          },
        ],
      },
    ],
    [namespaceDefinition, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } }],
    [configMapDefinition, { metadata: { name: 'settings' }, data: { 'app.conf': 'x=1', MODE: 'fast' }, binaryData: { blob: 'AAEC' }, immutable: true }],
    [secretDefinition, { metadata: { name: 'creds' }, type: 'svc.io/basic-auth', data: { password: 'cGFzcw==' }, stringData: { user: 'admin' } }],
    [
      eventDefinition,
      {
        metadata: { name: 'web.17a', namespace: 'default' },
        involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u', apiVersion: 'v1', resourceVersion: '5', fieldPath: 'spec.containers{app}' },
        reason: 'Pulled',
        message: 'Container image pulled',
        source: { component: 'node-agent', host: 'node-1' },
        firstTimestamp: '2024-01-01T00:00:00Z',
        lastTimestamp: '2024-01-01T00:01:00Z',
        count: 2,
        type: 'Normal',
        eventTime: '2024-01-01T00:00:00.123456Z',
        series: { count: 2, lastObservedTime: '2024-01-01T00:01:00.000001Z' },
        action: 'Pull',
        related: { kind: 'Node', name: 'node-1' },
        reportingComponent: 'node-agent',
        reportingInstance: 'node-1',
      },
    ],
    [
      nodeDefinition,
      {
        metadata: { name: 'node-1', labels: { 'node-role.svc.io/control-plane': '' } },
        spec: {
          podCIDR: '10.1.0.0/24',
          podCIDRs: ['10.1.0.0/24'],
          providerID: 'local://node-1',
          unschedulable: true,
          taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }],
        },
        status: {
          capacity: { cpu: '4', memory: '8Gi', pods: '110' },
          allocatable: { cpu: '3800m', memory: '7Gi', pods: 110 },
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              lastHeartbeatTime: '2024-01-01T00:00:00Z',
              lastTransitionTime: '2024-01-01T00:00:00Z',
              reason: 'AgentReady',
              message: 'ok',
            },
          ],
          addresses: [
            { type: 'InternalIP', address: '10.0.0.1' },
            { type: 'Hostname', address: 'node-1' },
          ],
          daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
          nodeInfo: {
            machineID: 'm',
            systemUUID: 's',
            bootID: 'b',
            kernelVersion: '6.1',
            osImage: 'Debian',
            containerRuntimeVersion: 'containerd://1.7',
            kubeletVersion: 'v1.25.0',
            kubeProxyVersion: '',
            operatingSystem: 'linux',
            architecture: 'amd64',
          },
        },
      },
    ],
    [
      serviceAccountDefinition,
      { metadata: { name: 'app' }, secrets: [{ name: 'app-token' }], imagePullSecrets: [{ name: 'registry' }], automountServiceAccountToken: false },
    ],
    [
      replicaSetDefinition,
      {
        metadata: { name: 'web-5d4f', labels: { app: 'web', 'pod-template-hash': '5d4f' } },
        spec: {
          replicas: 3,
          minReadySeconds: 5,
          selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'pod-template-hash', operator: 'In', values: ['5d4f'] }] },
          template: { metadata: { labels: { app: 'web', 'pod-template-hash': '5d4f' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
        },
        status: {
          replicas: 3,
          fullyLabeledReplicas: 3,
          readyReplicas: 2,
          availableReplicas: 2,
          observedGeneration: 1,
          conditions: [{ type: 'ReplicaFailure', status: 'False' }],
        },
      },
    ],
    [
      podDisruptionBudgetDefinition,
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'web', namespace: 'default' },
        spec: { minAvailable: '50%', selector: { matchLabels: { app: 'web' } }, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
        status: {
          observedGeneration: 1,
          disruptedPods: { 'web-1': '2024-01-01T00:00:00Z' },
          disruptionsAllowed: 1,
          currentHealthy: 3,
          desiredHealthy: 2,
          expectedPods: 3,
          conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }],
        },
      },
    ],
    [
      leaseDefinition,
      {
        apiVersion: 'coordination.svc.io/v1',
        kind: 'Lease',
        metadata: { name: 'controller-manager', namespace: 'svc-system' },
        spec: {
          holderIdentity: 'cm-1',
          leaseDurationSeconds: 15,
          acquireTime: '2024-01-01T00:00:00.000000Z',
          renewTime: '2024-01-01T00:00:10.123456Z',
          leaseTransitions: 3,
        },
      },
    ],
    [
      endpointSliceDefinition,
      {
        apiVersion: 'discovery.svc.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'web-abcde', namespace: 'team', labels: { 'kubernetes.io/service-name': 'web' } },
        addressType: 'IPv4',
        endpoints: [
          {
            addresses: ['10.1.0.7'],
            conditions: { ready: true, serving: true, terminating: false },
            nodeName: 'node-a',
            zone: 'z1',
            targetRef: { kind: 'Pod', name: 'web-1', namespace: 'team', uid: 'u1' },
            hints: { forZones: [{ name: 'z1' }] },
          },
        ],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'http' }],
      },
    ],
    [
      customResourceDefinitionDefinition,
      {
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
              subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' } },
              additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
            },
          ],
        },
      },
    ],
    [
      replicationControllerDefinition,
      {
        metadata: { name: 'legacy', labels: { app: 'legacy' } },
        spec: {
          replicas: 2,
          selector: { app: 'legacy' },
          template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } },
        },
        status: { replicas: 2, readyReplicas: 1, observedGeneration: 1, conditions: [{ type: 'ReplicaFailure', status: 'False' }] },
      },
    ],
    [
      roleDefinition,
      {
        metadata: { name: 'pod-reader', namespace: 'team' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'], resourceNames: ['web'] }],
      },
    ],
    [
      clusterRoleDefinition,
      {
        metadata: { name: 'system:aggregate-to-view' },
        rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] },
      },
    ],
    [
      roleBindingDefinition,
      {
        metadata: { name: 'read-pods', namespace: 'team' },
        subjects: [
          { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
          { kind: 'ServiceAccount', name: 'builder', namespace: 'team' },
        ],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
      },
    ],
    [
      clusterRoleBindingDefinition,
      {
        metadata: { name: 'view-all' },
        subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'viewers' }],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      },
    ],
    [
      validatingWebhookConfigurationDefinition,
      parse(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: { name: pod-policy.example.com }
webhooks:
- name: pod-policy.example.com
  rules:
  - { apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods], scope: Namespaced }
  clientConfig: { service: { namespace: example-namespace, name: example-service, port: 443 }, caBundle: Y2E= }
  admissionReviewVersions: [v1]
  sideEffects: None
  timeoutSeconds: 5
  failurePolicy: Fail
  matchPolicy: Equivalent
  namespaceSelector: { matchExpressions: [{ key: runlevel, operator: NotIn, values: ["0", "1"] }] }
  objectSelector: { matchLabels: { foo: bar } }
`),
    ],
    [
      mutatingWebhookConfigurationDefinition,
      parse(`
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: { name: defaults.example.com }
webhooks:
- name: defaults.example.com
  clientConfig: { url: "https://127.0.0.1:9443/mutate" }
  rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }]
  admissionReviewVersions: [v1, v1beta1]
  sideEffects: NoneOnDryRun
  reinvocationPolicy: IfNeeded
`),
    ],
    [
      validatingAdmissionPolicyDefinition,
      parse(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: { name: demo-policy.example.com }
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{ apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments] }]
  validations:
  - { expression: "object.spec.replicas <= 5", message: "at most 5 replicas", reason: Invalid }
`),
    ],
    [
      jobDefinition,
      // As kubectl create job sends it, with the selector and labels the server made (a uid makes them valid).
      parse(`
apiVersion: batch/v1
kind: Job
metadata: { name: pi, uid: 6f1c7c2e-5a47-4b1a-9b0e-3c5f2d1e8a90 }
spec:
  selector: { matchLabels: { batch.kubernetes.io/controller-uid: 6f1c7c2e-5a47-4b1a-9b0e-3c5f2d1e8a90 } }
  template:
    metadata:
      labels:
        batch.kubernetes.io/controller-uid: 6f1c7c2e-5a47-4b1a-9b0e-3c5f2d1e8a90
        batch.kubernetes.io/job-name: pi
        controller-uid: 6f1c7c2e-5a47-4b1a-9b0e-3c5f2d1e8a90
        job-name: pi
    spec:
      containers: [{ name: pi, image: perl:5.34.0, command: [perl, -Mbignum=bpi, -wle, print bpi(2000)] }]
      restartPolicy: Never
  backoffLimit: 4
  completionMode: Indexed
  completions: 5
  parallelism: 2
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: { containerName: pi, operator: In, values: [42] }
    - action: Ignore
      onPodConditions: [{ type: DisruptionTarget }]
  ttlSecondsAfterFinished: 100
status:
  conditions: [{ type: Complete, status: "True", lastProbeTime: "2024-01-01T00:00:00Z", lastTransitionTime: "2024-01-01T00:00:00Z" }]
  startTime: "2024-01-01T00:00:00Z"
  completionTime: "2024-01-01T00:01:00Z"
  succeeded: 5
  completedIndexes: 0-4
  uncountedTerminatedPods: {}
  ready: 0
  terminating: 0
`),
    ],
    [
      cronJobDefinition,
      parse(`
apiVersion: batch/v1
kind: CronJob
metadata: { name: hello }
spec:
  schedule: "*/5 9-17 * JAN-jun mon-FRI"
  timeZone: Europe/Paris
  concurrencyPolicy: Forbid
  startingDeadlineSeconds: 200
  successfulJobsHistoryLimit: 3
  failedJobsHistoryLimit: 1
  jobTemplate:
    metadata: { labels: { app: hello } }
    spec:
      template:
        spec:
          containers: [{ name: hello, image: busybox:1.28, command: [sh, -c, date] }]
          restartPolicy: OnFailure
status:
  active: [{ apiVersion: batch/v1, kind: Job, name: hello-28000000, namespace: default, uid: u }]
  lastScheduleTime: "2024-01-01T00:00:00Z"
`),
    ],
    [
      statefulSetDefinition,
      parse(`
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: web }
spec:
  selector: { matchLabels: { app: nginx } }
  serviceName: nginx
  replicas: 3
  minReadySeconds: 10
  ordinals: { start: 1 }
  podManagementPolicy: Parallel
  updateStrategy: { type: RollingUpdate, rollingUpdate: { partition: 1 } }
  persistentVolumeClaimRetentionPolicy: { whenDeleted: Delete, whenScaled: Retain }
  template:
    metadata: { labels: { app: nginx } }
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        ports: [{ containerPort: 80, name: web }]
        volumeMounts: [{ name: www, mountPath: /usr/share/nginx/html }]
  volumeClaimTemplates:
  - metadata: { name: www }
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: my-storage-class
      resources: { requests: { storage: 1Gi } }
status: { replicas: 3, readyReplicas: 3, currentRevision: web-5c7d9, updateRevision: web-5c7d9, availableReplicas: 3 }
`),
    ],
    [
      daemonSetDefinition,
      parse(`
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: fluentd-elasticsearch, namespace: kube-system, labels: { k8s-app: fluentd-logging } }
spec:
  selector: { matchLabels: { name: fluentd-elasticsearch } }
  updateStrategy: { type: RollingUpdate, rollingUpdate: { maxUnavailable: 0, maxSurge: "10%" } }
  template:
    metadata: { labels: { name: fluentd-elasticsearch } }
    spec:
      tolerations: [{ key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule }]
      containers:
      - name: fluentd-elasticsearch
        image: quay.io/fluentd_elasticsearch/fluentd:v2.5.2
        resources: { limits: { memory: 200Mi }, requests: { cpu: 100m, memory: 200Mi } }
        volumeMounts: [{ name: varlog, mountPath: /var/log }]
      terminationGracePeriodSeconds: 30
      volumes: [{ name: varlog, hostPath: { path: /var/log } }]
status: { currentNumberScheduled: 2, numberMisscheduled: 0, desiredNumberScheduled: 2, numberReady: 2, updatedNumberScheduled: 2, numberAvailable: 2 }
`),
    ],
    [
      controllerRevisionDefinition,
      {
        metadata: { name: 'web-5c7d9', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true }] },
        data: { spec: { template: { $patch: 'replace', spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } } },
        revision: 1,
      },
    ],
    [
      podTemplateDefinition,
      {
        metadata: { name: 'tmpl' },
        template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } },
      },
    ],
    [priorityClassDefinition, { metadata: { name: 'high-priority' }, value: 1000000, globalDefault: false, description: 'For the front end.' }],
    [priorityClassDefinition, { metadata: { name: 'system-node-critical' }, value: 2000001000 }],
    // The configuration every server keeps is valid as it ships.
    ...[...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS].map((o): [KindDefinition, unknown] => [flowSchemaDefinition, o]),
    ...[...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS].map((o): [KindDefinition, unknown] => [priorityLevelConfigurationDefinition, o]),
    [
      runtimeClassDefinition,
      {
        metadata: { name: 'sandboxed' },
        handler: 'runsc',
        overhead: { podFixed: { cpu: '250m', memory: '64Mi' } },
        scheduling: { nodeSelector: { 'sandbox.example/runtime': 'runsc' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
      },
    ],
    [
      eventsEventDefinition,
      {
        metadata: { name: 'checked', namespace: 'default' },
        eventTime: '2026-12-07T10:00:00.123456Z',
        series: { count: 2, lastObservedTime: '2026-12-07T10:01:00.000000Z' },
        reportingController: 'example.com/checker',
        reportingInstance: 'checker-1',
        action: 'Checking',
        reason: 'Checked',
        regarding: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'web' },
        note: 'all is well',
        type: 'Normal',
      },
    ],
    [
      apiServiceDefinition,
      {
        metadata: { name: 'v1beta1.metrics.k8s.io' },
        spec: {
          service: { namespace: 'kube-system', name: 'metrics-server', port: 443 },
          group: 'metrics.k8s.io',
          version: 'v1beta1',
          insecureSkipTLSVerify: true,
          groupPriorityMinimum: 100,
          versionPriority: 100,
        },
        status: {
          conditions: [{ type: 'Available', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'Passed', message: 'all checks passed' }],
        },
      },
    ],
    [apiServiceDefinition, { metadata: { name: 'v1.' }, spec: { service: null, group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 } }],
    [
      persistentVolumeDefinition,
      parse(`
metadata: { name: data-0 }
spec:
  capacity: { storage: 10Gi }
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Delete
  storageClassName: local-path
  local: { path: /var/lib/data/data-0 }
  nodeAffinity:
    required:
      nodeSelectorTerms:
        - matchExpressions: [{ key: kubernetes.io/hostname, operator: In, values: [node-1] }]
`),
    ],
    [
      persistentVolumeDefinition,
      {
        metadata: { name: 'nfs' },
        spec: { capacity: { storage: '1Ti' }, accessModes: ['ReadWriteMany'], nfs: { server: 'nfs.example.com', path: '/exports' } },
      },
    ],
    [
      persistentVolumeClaimDefinition,
      { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'local-path' } },
    ],
    [
      storageClassDefinition,
      {
        metadata: { name: 'local-path', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
        provisioner: 'svc.io/local-path',
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'WaitForFirstConsumer',
        allowedTopologies: [{ matchLabelExpressions: [{ key: 'kubernetes.io/hostname', values: ['node-1'] }] }],
      },
    ],
    [csiDriverDefinition, { metadata: { name: 'hostpath.csi.example.com' }, spec: { attachRequired: false, tokenRequests: [{ audience: 'vault' }] } }],
    [
      csiNodeDefinition,
      {
        metadata: { name: 'node-1' },
        spec: { drivers: [{ name: 'hostpath.csi.example.com', nodeID: 'node-1', topologyKeys: ['topology.kubernetes.io/zone'] }] },
      },
    ],
    [
      csiStorageCapacityDefinition,
      { metadata: { name: 'zone-a', namespace: 'kube-system' }, storageClassName: 'fast', capacity: '100Gi', nodeTopology: { matchLabels: { zone: 'a' } } },
    ],
    [
      volumeAttachmentDefinition,
      { metadata: { name: 'csi-123' }, spec: { attacher: 'hostpath.csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'data-0' } } },
    ],
    [
      ingressClassDefinition,
      {
        metadata: { name: 'svc', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
        spec: { controller: 'svc.io/ingress', parameters: { apiGroup: 'example.com', kind: 'IngressParameters', name: 'tuned' } },
      },
    ],
    [
      ingressDefinition,
      parse(`
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: { name: web, namespace: shop }
spec:
  ingressClassName: svc
  defaultBackend: { service: { name: fallback, port: { name: http } } }
  tls: [{ hosts: [web.example, '*.shop.example'], secretName: web-tls }]
  rules:
    - host: web.example
      http:
        paths:
          - { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
          - { path: /exact, pathType: Exact, backend: { service: { name: web, port: { number: 8080 } } } }
    - host: '*.shop.example'
      http:
        paths: [{ pathType: ImplementationSpecific, backend: { resource: { apiGroup: storage.example.com, kind: Bucket, name: assets } } }]
status:
  loadBalancer: { ingress: [{ ip: 192.0.2.10, ports: [{ port: 443, protocol: TCP }] }] }
`),
    ],
    [
      networkPolicyDefinition,
      parse(`
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: { name: db, namespace: shop }
spec:
  podSelector: { matchLabels: { app: db } }
  policyTypes: [Ingress, Egress]
  ingress:
    - from:
        - podSelector: { matchLabels: { app: web } }
        - namespaceSelector: { matchLabels: { team: shop } }
          podSelector: { matchExpressions: [{ key: role, operator: In, values: [api] }] }
        - ipBlock: { cidr: 10.0.0.0/8, except: [10.1.0.0/16] }
      ports: [{ protocol: TCP, port: 5432 }, { port: 9000, endPort: 9010 }, { port: metrics }]
  egress:
    - to: [{ ipBlock: { cidr: '2001:db8::/64' } }]
`),
    ],
    [
      resourceQuotaDefinition,
      parse(`
apiVersion: v1
kind: ResourceQuota
metadata: { name: compute, namespace: team-a }
spec:
  hard: { pods: "10", requests.cpu: "4", limits.memory: 8Gi, count/deployments.apps: "5" }
  scopeSelector:
    matchExpressions: [{ scopeName: PriorityClass, operator: In, values: [high] }]
status:
  hard: { pods: "10", requests.cpu: "4", limits.memory: 8Gi, count/deployments.apps: "5" }
  used: { pods: "2", requests.cpu: 500m, limits.memory: 1Gi, count/deployments.apps: "1" }
`),
    ],
    [
      limitRangeDefinition,
      parse(`
apiVersion: v1
kind: LimitRange
metadata: { name: bounds, namespace: team-a }
spec:
  limits:
    - { type: Container, default: { cpu: 500m }, defaultRequest: { cpu: 100m }, max: { cpu: "2" }, maxLimitRequestRatio: { cpu: "10" } }
    - { type: Pod, max: { memory: 4Gi } }
    - { type: PersistentVolumeClaim, min: { storage: 1Gi }, max: { storage: 10Gi } }
`),
    ],
    [
      horizontalPodAutoscalerDefinition,
      parse(`
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: { name: web, namespace: team-a }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  minReplicas: 2
  maxReplicas: 10
  metrics:
    - { type: Resource, resource: { name: cpu, target: { type: Utilization, averageUtilization: 50 } } }
    - { type: ContainerResource, containerResource: { name: memory, container: app, target: { type: AverageValue, averageValue: 200Mi } } }
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 60
      selectPolicy: Min
      policies: [{ type: Pods, value: 1, periodSeconds: 30 }]
status:
  currentReplicas: 2
  desiredReplicas: 3
  currentMetrics: [{ type: Resource, resource: { name: cpu, current: { averageUtilization: 70, averageValue: 70m } } }]
  conditions: [{ type: AbleToScale, status: "True", reason: SucceededRescale, message: done, lastTransitionTime: "2026-01-01T00:00:00Z" }]
`),
    ],
    [
      horizontalPodAutoscalerV1Definition,
      parse(`
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: { name: web, namespace: team-a }
spec: { scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 50 }
status: { currentReplicas: 1, desiredReplicas: 1, currentCPUUtilizationPercentage: 20 }
`),
    ],
    [
      validatingAdmissionPolicyBindingDefinition,
      parse(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: { name: demo-binding-test.example.com }
spec:
  policyName: demo-policy.example.com
  validationActions: [Deny, Audit]
  matchResources: { namespaceSelector: { matchLabels: { environment: test } } }
`),
    ],
    [
      certificateSigningRequestDefinition,
      parse(`
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: { name: node-csr-worker-1 }
spec:
  # CN system:node:worker-1, O system:nodes, an ECDSA P-256 key
  request: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIeU1JR1lBZ0VBTURZeEZUQVRCZ05WQkFvTURITjVjM1JsYlRwdWIyUmxjekVkTUJzR0ExVUVBd3dVYzNsegpkR1Z0T201dlpHVTZkMjl5YTJWeUxURXdXVEFUQmdjcWhrak9QUUlCQmdncWhrak9QUU1CQndOQ0FBUjNXZWVCCjdDdk9zeTJEZEZGRk5WT0JsbUJ4c0tlSW4rKzFlQzJFRlEyNVhWcjA5YVpsTDZXQ2pSWXZMSE1QbE9oaVJ1NTgKMk5RVCtzZVN2NVhZNVE0OW9BQXdDZ1lJS29aSXpqMEVBd0lEU1FBd1JnSWhBT0tHOWtlUkgrWnpPZGxTaGttWQpubWZtZFArVDd0a01XelliQ3R3VStlbjJBaUVBdjZhLzFjQ2xFdHJtNjVndGgyeGh0RzNGWWZTSVZyakpHWlhmCmdVMk9tOG89Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=
  signerName: kubernetes.io/kube-apiserver-client-kubelet
  expirationSeconds: 86400
  usages: [digital signature, client auth]
status:
  conditions: [{ type: Approved, status: "True", reason: AutoApproved, message: approved by the node client approver }]
`),
    ],
  ];
}

describe('built-in kinds', () => {
  it('covers every kind of the built-in scheme with a valid object', () => {
    const covered = new Set(validObjects().map(([def]) => def.kind));
    expect(
      builtinScheme()
        .all()
        .map((d) => d.kind)
        .filter((k) => !covered.has(k)),
    ).toEqual([]);
  });

  it.each(validObjects().map(([def, obj], i) => [`${def.kind} #${i}`, def, obj] as const))('%s validates strictly', (_name, def, obj) => {
    expect(check(def, obj)).toEqual({ errors: [], unknown: [] });
  });

  it('reports broken Pod fields with their paths', () => {
    const pod = structuredClone(fullPod);
    pod.metadata.name = 'Not_Valid';
    pod.metadata.labels['bad key!'] = 'x';
    pod.metadata.labels.tier = 'has space';
    pod.spec.containers[0].name = 'App';
    pod.spec.containers[0].ports[1].protocol = 'ICMP';
    pod.spec.containers[0].env[0].value = 5;
    pod.spec.containers[0].resources.limits.cpu = 'lots';
    pod.spec.containers[0].livenessProbe.httpGet.port = true;
    pod.spec.containers[0].imagePullPolicy = 'Sometimes';
    pod.spec.containers[1].name = 'init';
    delete pod.spec.containers[1].image;
    pod.spec.containers[0].volumeMounts[0].name = 'missing';
    pod.spec.restartPolicy = 'Sometimes';
    pod.spec.dnsPolicy = 'Other';
    pod.spec.terminationGracePeriodSeconds = -1;
    pod.spec.hostname = 'x'.repeat(64);
    pod.status.phase = 'Exploded';
    pod.status.startTime = 'yesterday';
    expect(fields(check(podDefinition, pod).errors)).toEqual(
      expect.arrayContaining([
        'metadata.name FieldValueInvalid',
        'metadata.labels FieldValueInvalid',
        'spec.containers[0].name FieldValueInvalid',
        'spec.containers[0].ports[1].protocol FieldValueNotSupported',
        'spec.containers[0].env[0].value FieldValueTypeInvalid',
        'spec.containers[0].resources.limits[cpu] FieldValueTypeInvalid',
        'spec.containers[0].livenessProbe.httpGet.port FieldValueTypeInvalid',
        'spec.containers[0].imagePullPolicy FieldValueNotSupported',
        'spec.containers[1].image FieldValueRequired',
        'spec.containers[1].name FieldValueDuplicate',
        'spec.containers[0].volumeMounts[0].name FieldValueNotFound',
        'spec.restartPolicy FieldValueNotSupported',
        'spec.dnsPolicy FieldValueNotSupported',
        'spec.terminationGracePeriodSeconds FieldValueInvalid',
        'spec.hostname FieldValueInvalid',
        'status.phase FieldValueNotSupported',
        'status.startTime FieldValueInvalid',
      ]),
    );
  });

  it('requires a name and at least one container, metadata first as Kubernetes checks ObjectMeta first', () => {
    expect(fields(check(podDefinition, { metadata: {}, spec: { containers: [] } }).errors)).toEqual([
      'metadata.name FieldValueRequired',
      'spec.containers FieldValueRequired',
    ]);
    expect(check(podDefinition, { metadata: { generateName: 'web-' }, spec: { containers: [{ name: 'a', image: 'b' }] } }).errors).toEqual([]);
  });

  it("checks a pod's dnsConfig and hostAliases as Kubernetes does, dnsPolicy None needing a nameserver", () => {
    const pod = (spec: Record<string, unknown>) => ({ metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'b' }], ...spec } });
    const errors = (spec: Record<string, unknown>) => check(podDefinition, pod(spec)).errors;
    expect(errors({ dnsPolicy: 'None' })).toEqual([
      { type: 'FieldValueRequired', field: 'spec.dnsConfig', detail: 'must provide `dnsConfig` when `dnsPolicy` is None' },
    ]);
    expect(errors({ dnsPolicy: 'None', dnsConfig: { searches: ['a.example'] } })).toEqual([
      { type: 'FieldValueRequired', field: 'spec.dnsConfig.nameservers', detail: 'must provide at least one DNS nameserver when `dnsPolicy` is None' },
    ]);
    expect(
      errors({ dnsPolicy: 'None', dnsConfig: { nameservers: ['10.0.0.10'], searches: ['ns.svc.cluster.local.'], options: [{ name: 'ndots', value: '2' }] } }),
    ).toEqual([]);
    const many = Array.from({ length: 33 }, (_, i) => `d${i}.example`);
    expect(
      errors({
        dnsConfig: { nameservers: ['1.1.1.1', '8.8.8.8', '9.9.9.9', 'fd00::1', 'not-an-ip'], searches: [...many, 'Bad_Domain'], options: [{ value: 'x' }] },
      }),
    ).toEqual([
      expect.objectContaining({ type: 'FieldValueInvalid', field: 'spec.dnsConfig.nameservers', detail: 'must not have more than 3 nameservers' }),
      {
        type: 'FieldValueInvalid',
        field: 'spec.dnsConfig.nameservers[4]',
        badValue: 'not-an-ip',
        detail: 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      },
      expect.objectContaining({ type: 'FieldValueInvalid', field: 'spec.dnsConfig.searches', detail: 'must not have more than 32 search paths' }),
      expect.objectContaining({ type: 'FieldValueInvalid', field: 'spec.dnsConfig.searches[33]', badValue: 'Bad_Domain' }),
      { type: 'FieldValueRequired', field: 'spec.dnsConfig.options[0]', detail: 'must not be empty' },
    ]);
    const wide = Array.from({ length: 10 }, (_, i) => `${i}${'w'.repeat(62)}.${'x'.repeat(63)}.${'y'.repeat(63)}.${'z'.repeat(20)}`);
    expect(fields(errors({ dnsConfig: { searches: wide } }))).toEqual(['spec.dnsConfig.searches FieldValueInvalid']);
    expect(errors({ dnsConfig: { searches: wide } })[0].detail).toBe('must not have more than 2048 characters (including spaces) in the search list');
    expect(
      fields(
        errors({
          hostAliases: [
            { ip: '10.0.0.300', hostnames: ['ok.example', 'Not Valid'] },
            { ip: 'fd00::9', hostnames: ['v6'] },
          ],
        }),
      ),
    ).toEqual(['spec.hostAliases[0].ip FieldValueInvalid', 'spec.hostAliases[0].hostnames[1] FieldValueInvalid']);
    // A Deployment's pod template is held to the same rules.
    const d = structuredClone(kubectlDeployment) as { spec: { template: { spec: Record<string, unknown> } } };
    d.spec.template.spec.dnsPolicy = 'None';
    expect(fields(check(deploymentDefinition, d).errors)).toEqual(['spec.template.spec.dnsConfig FieldValueRequired']);
  });

  it('holds a pod template to the annotation size limit its pods would have to pass', () => {
    const d = structuredClone(kubectlDeployment) as { spec: { template: { metadata: { annotations?: Record<string, string> } } } };
    d.spec.template.metadata.annotations = { big: 'x'.repeat(256 * 1024) };
    expect(check(deploymentDefinition, d).errors.map((e) => `${e.field} ${e.type}`)).toEqual(['spec.template.metadata.annotations FieldValueTooLong']);
  });

  it('reports Deployment cross-field errors', () => {
    const d = structuredClone(kubectlDeployment);
    d.spec.template.metadata.labels = { app: 'other' };
    d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } };
    d.spec.template.spec.restartPolicy = 'Never';
    expect(check(deploymentDefinition, d).errors).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.template.metadata.labels',
        badValue: { app: 'other' },
        detail: '`selector` does not match template `labels`',
      },
      { type: 'FieldValueNotSupported', field: 'spec.template.spec.restartPolicy', badValue: 'Never', detail: 'supported values: "Always"' },
      { type: 'FieldValueInvalid', field: 'spec.strategy.rollingUpdate.maxUnavailable', badValue: '0%', detail: 'may not be 0 when `maxSurge` is 0' },
    ]);
  });

  it('keeps an absent Deployment or ReplicaSet selector an error', () => {
    const d = structuredClone(kubectlDeployment);
    delete d.spec.selector;
    expect(fields(check(deploymentDefinition, d).errors)).toEqual(['spec.selector FieldValueRequired']);
    const rs = { metadata: { name: 'rs' }, spec: { template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } };
    expect(fields(check(replicaSetDefinition, rs).errors)).toEqual(['spec.selector FieldValueRequired']);
    expect(fields(check(replicaSetDefinition, { ...rs, spec: { ...rs.spec, selector: {} } }).errors)).toEqual(['spec.selector FieldValueInvalid']);
  });

  it('rejects bad int-or-string values of a rolling update', () => {
    const d = structuredClone(kubectlDeployment);
    d.spec.strategy = { rollingUpdate: { maxSurge: 'lots', maxUnavailable: -1 } };
    d.spec.replicas = 'three';
    expect(fields(check(deploymentDefinition, d).errors)).toEqual([
      'spec.replicas FieldValueTypeInvalid',
      'spec.strategy.rollingUpdate.maxUnavailable FieldValueInvalid',
      'spec.strategy.rollingUpdate.maxSurge FieldValueInvalid',
    ]);
    d.spec.strategy = { type: 'Recreate', rollingUpdate: { maxSurge: 1 } };
    d.spec.replicas = 1;
    expect(fields(check(deploymentDefinition, d).errors)).toEqual(['spec.strategy.rollingUpdate FieldValueForbidden']);
  });

  it('checks Service names and ports', () => {
    const svc = {
      metadata: { name: '1-starts-with-digit' },
      spec: {
        type: 'Balanced',
        ports: [
          { name: 'http', port: 80 },
          { name: 'http', port: 80 },
          { port: 81, nodePort: 30000 },
        ],
        sessionAffinity: 'Sticky',
      },
    };
    expect(fields(check(serviceDefinition, svc).errors)).toEqual([
      'metadata.name FieldValueInvalid',
      'spec.type FieldValueNotSupported',
      'spec.sessionAffinity FieldValueNotSupported',
      'spec.ports[1].name FieldValueDuplicate',
      'spec.ports[1] FieldValueDuplicate',
      'spec.ports[2].name FieldValueRequired',
      'spec.ports[2].nodePort FieldValueForbidden',
    ]);
    expect(fields(check(serviceDefinition, { metadata: { name: 'np' }, spec: { ports: [{ port: 1, nodePort: 30001 }] } }).errors)).toEqual([
      'spec.ports[0].nodePort FieldValueForbidden',
    ]);
    expect(fields(check(serviceDefinition, { metadata: { name: 'none' }, spec: {} }).errors)).toEqual(['spec.ports FieldValueRequired']);
    expect(fields(check(serviceDefinition, { metadata: { name: 'ext' }, spec: { type: 'ExternalName' } }).errors)).toEqual([
      'spec.externalName FieldValueRequired',
    ]);
  });

  it('bounds the data of a ConfigMap and of a Secret to 1 MiB together', () => {
    const half = 'x'.repeat(512 * 1024);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: half }, binaryData: { b: Buffer.from(half).toString('base64') } };
    expect(check(configMapDefinition, cm).errors).toEqual([]);
    const over = { ...cm, data: { a: `${half}x` } };
    expect(check(configMapDefinition, over).errors).toEqual([{ type: 'FieldValueTooLong', field: '', detail: 'may not be more than 1048576 bytes' }]);
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'big' }, data: { a: Buffer.from(`${half}${half}x`).toString('base64') } };
    expect(check(secretDefinition, secret).errors).toEqual([{ type: 'FieldValueTooLong', field: 'data', detail: 'may not be more than 1048576 bytes' }]);
  });

  it("folds a Secret's stringData into data, over keys of the same name", () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'b2xk', b: 'a2VwdA==' }, stringData: { a: 'new' } };
    const k = compileKind(secretDefinition);
    const copy = structuredClone(secret) as Record<string, unknown>;
    k.default(copy);
    expect(copy.stringData).toBeUndefined();
    expect(copy.data).toEqual({ a: Buffer.from('new').toString('base64'), b: 'a2VwdA==' });
    // A stringData that is not a map of strings is left for validation to refuse.
    const broken = { ...secret, stringData: { a: 1 } };
    expect(check(secretDefinition, broken).errors.map((e) => e.field)).toEqual(['stringData[a]']);
  });

  it('reports broken fields of the other kinds', () => {
    expect(fields(check(namespaceDefinition, { metadata: { name: 'has.dot' }, status: { phase: 'Gone' } }).errors)).toEqual([
      'metadata.name FieldValueInvalid',
      'status.phase FieldValueNotSupported',
      'status.phase FieldValueInvalid',
    ]);
    expect(fields(check(configMapDefinition, { metadata: { name: 'c' }, data: { 'bad key': 'v', k: 1 }, binaryData: { k: 'AA==' } }).errors)).toEqual([
      'data[bad key] FieldValueInvalid',
      'data[k] FieldValueTypeInvalid',
      'data[k] FieldValueInvalid',
    ]);
    expect(fields(check(secretDefinition, { metadata: { name: 's' }, data: { key: 'not base64!' } }).errors)).toEqual(['data[key] FieldValueInvalid']);
    expect(fields(check(eventDefinition, { metadata: { name: 'e' }, count: 'many' }).errors)).toEqual([
      'involvedObject FieldValueRequired',
      'count FieldValueTypeInvalid',
    ]);
    expect(
      fields(
        check(nodeDefinition, {
          metadata: { name: 'n' },
          spec: {
            taints: [
              { key: 'a', effect: 'NoSchedule' },
              { key: 'a', effect: 'NoSchedule' },
              { key: 'b', effect: 'Sometimes' },
            ],
          },
          status: { addresses: [{ type: 'Elsewhere', address: 'x' }] },
        }).errors,
      ),
    ).toEqual(['spec.taints[2].effect FieldValueNotSupported', 'status.addresses[0].type FieldValueNotSupported', 'spec.taints[1] FieldValueDuplicate']);
    expect(fields(check(serviceAccountDefinition, { metadata: { name: 'sa' }, automountServiceAccountToken: 'yes' }).errors)).toEqual([
      'automountServiceAccountToken FieldValueTypeInvalid',
    ]);
    expect(fields(check(endpointsDefinition, { metadata: { name: 'e' }, subsets: [{ addresses: [{}], ports: [{ port: 0 }] }] }).errors)).toEqual([
      'subsets[0].addresses[0].ip FieldValueRequired',
      'subsets[0].ports[0].port FieldValueInvalid',
    ]);
    expect(fields(check(podDisruptionBudgetDefinition, { metadata: { name: 'p' }, spec: { minAvailable: 1, maxUnavailable: '120%' } }).errors)).toEqual([
      'spec FieldValueInvalid',
      'spec.maxUnavailable FieldValueInvalid',
    ]);
    expect(fields(check(leaseDefinition, { metadata: { name: 'l' }, spec: { leaseDurationSeconds: 0, renewTime: 'now' } }).errors)).toEqual([
      'spec.leaseDurationSeconds FieldValueInvalid',
      'spec.renewTime FieldValueInvalid',
    ]);
  });

  it('reports a CustomResourceDefinition that cannot be served', () => {
    const crd = {
      metadata: { name: 'wrong.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', kind: 'Widget' },
        scope: 'Galaxy',
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { a: { type: 'nonsense' } } } } },
          { name: 'v1', served: true, storage: true },
        ],
      },
    };
    expect(fields(check(customResourceDefinitionDefinition, crd).errors)).toEqual([
      'spec.scope FieldValueNotSupported',
      'metadata.name FieldValueInvalid',
      'spec.versions[0].schema.openAPIV3Schema FieldValueInvalid',
      'spec.versions[1].name FieldValueDuplicate',
      'spec.versions[1].schema.openAPIV3Schema FieldValueRequired',
      'spec.versions FieldValueInvalid',
    ]);
  });

  it('derives static types that accept real objects and reject wrong enums', () => {
    const v: Volume = { name: 'x', emptyDir: {}, nfs: { server: 's', path: '/' } };
    const c: Container = { name: 'c', image: 'i', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } };
    const p: Pod = { metadata: { name: 'p', labels: { a: 'b' } }, spec: { containers: [c], volumes: [v] } };
    const d: Deployment = {
      spec: { selector: { matchLabels: { a: 'b' } }, template: { spec: { containers: [c] } }, strategy: { rollingUpdate: { maxSurge: '25%' } } },
    };
    const s: Service = { spec: { ports: [{ port: 80, targetPort: 'http' }], type: 'ClusterIP' } };
    const l: PodList = { metadata: { resourceVersion: '1' }, items: [p] };
    const l2: List<Service> = { metadata: {}, items: [s] };
    const w: WatchEvent<Pod> = { type: 'ADDED', object: p };
    const st: Status = { kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound', details: { causes: [{ field: 'a' }] } };
    const t: Table = { columnDefinitions: [], rows: [] };
    const crd: CustomResourceDefinition = {
      spec: { group: 'g', names: { plural: 'x', kind: 'X' }, scope: 'Cluster', versions: [{ name: 'v1', served: true, storage: true }] },
    };
    // @ts-expect-error protocol is an enum
    const bad: Container = { name: 'c', image: 'i', ports: [{ containerPort: 80, protocol: 'ICMP' }] };
    expect([v, p, d, s, l, l2, w, st, t, crd, bad].length).toBe(11);
  });
});
