import {
  compileKind,
  defaultPullPolicy,
  deploymentDefinition,
  namespaceDefinition,
  podDefinition,
  replicaSetDefinition,
  secretDefinition,
  serviceDefinition,
  type Deployment,
  type Namespace,
  type Pod,
  type Secret,
  type Service,
} from '../index';

const template = (containers: object[] = [{ name: 'c', image: 'nginx' }]) => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers },
});

describe('defaulting', () => {
  it('fills Deployment defaults in place', () => {
    const d = { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: template() } };
    const out = compileKind(deploymentDefinition).default(d) as unknown as Deployment;
    expect(out).toBe(d);
    expect(out.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    });
    expect(out.spec.template.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
    });
    // Pod-only defaults stay off templates, as in Kubernetes.
    expect(out.spec.template.spec.enableServiceLinks).toBeUndefined();
  });

  it('keeps explicit values and fills only what is missing of a rolling update', () => {
    const d = {
      metadata: { name: 'web' },
      spec: {
        replicas: 0,
        revisionHistoryLimit: 2,
        selector: { matchLabels: { app: 'web' } },
        strategy: { rollingUpdate: { maxSurge: 1 } },
        template: template(),
      },
    };
    const out = compileKind(deploymentDefinition).default(d) as unknown as Deployment;
    expect(out.spec.replicas).toBe(0);
    expect(out.spec.revisionHistoryLimit).toBe(2);
    expect(out.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } });
  });

  it('does not give a Recreate strategy rolling-update values', () => {
    const d = { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, strategy: { type: 'Recreate' }, template: template() } };
    expect((compileKind(deploymentDefinition).default(d) as unknown as Deployment).spec.strategy).toEqual({ type: 'Recreate' });
  });

  it('defaults ReplicaSet replicas and leaves a missing selector missing', () => {
    const rs = { metadata: { name: 'rs' }, spec: { template: template() } };
    compileKind(replicaSetDefinition).default(rs);
    expect(rs.spec).toMatchObject({ replicas: 1 });
    expect('selector' in rs.spec).toBe(false);
  });

  it('fills Pod and container defaults', () => {
    const pod = {
      metadata: { name: 'p', creationTimestamp: null },
      spec: {
        containers: [
          { name: 'a', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } }, readinessProbe: { httpGet: { port: 80 } } },
          { name: 'b', image: 'nginx:latest' },
          { name: 'c', image: 'nginx:1.25' },
          { name: 'd', image: 'registry:5000/team/app' },
          { name: 'e', image: 'registry:5000/team/app@sha256:abc' },
          { name: 'f', image: 'app:v1', imagePullPolicy: 'Never' },
        ],
        volumes: [{ name: 'scratch' }, { name: 'cm', configMap: { name: 'x' } }],
      },
    };
    const out = compileKind(podDefinition).default(pod) as unknown as Pod;
    expect('creationTimestamp' in out.metadata!).toBe(false);
    expect(out.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
      securityContext: {},
    });
    expect(out.spec.containers.map((c) => c.imagePullPolicy)).toEqual(['Always', 'Always', 'IfNotPresent', 'Always', 'IfNotPresent', 'Never']);
    expect(out.spec.containers[0]).toMatchObject({
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      resources: { limits: { cpu: '1' }, requests: { cpu: '1' } },
      readinessProbe: { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
    });
    expect(out.spec.volumes).toEqual([
      { name: 'scratch', emptyDir: {} },
      { name: 'cm', configMap: { name: 'x', defaultMode: 420 } },
    ]);
  });

  it('chooses pull policies from the image reference', () => {
    expect(defaultPullPolicy('nginx')).toBe('Always');
    expect(defaultPullPolicy('nginx:latest')).toBe('Always');
    expect(defaultPullPolicy('localhost:5000/nginx')).toBe('Always');
    expect(defaultPullPolicy('localhost:5000/nginx:1.0')).toBe('IfNotPresent');
    expect(defaultPullPolicy('nginx@sha256:0123')).toBe('IfNotPresent');
    expect(defaultPullPolicy('nginx:latest@sha256:0123')).toBe('Always');
  });

  it('fills Service defaults, targetPort from port', () => {
    const svc = { metadata: { name: 's' }, spec: { ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] } };
    const out = compileKind(serviceDefinition).default(svc) as unknown as Service;
    expect(out.spec).toEqual({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ports: [
        { port: 80, protocol: 'TCP', targetPort: 80 },
        { port: 53, protocol: 'UDP', targetPort: 'dns' },
      ],
    });
    const lb = compileKind(serviceDefinition).default({
      metadata: { name: 'lb' },
      spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 1 }] },
    }) as unknown as Service;
    expect(lb.spec).toMatchObject({
      externalTrafficPolicy: 'Cluster',
      allocateLoadBalancerNodePorts: true,
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    });
    const bare = compileKind(serviceDefinition).default({ metadata: { name: 'bare' } }) as unknown as Service;
    expect(bare.spec).toMatchObject({ type: 'ClusterIP', sessionAffinity: 'None' });
  });

  it('gives a Namespace its finalizer and phase, and a Secret its type', () => {
    const ns = compileKind(namespaceDefinition).default({ metadata: { name: 'team' } }) as unknown as Namespace;
    expect(ns.spec).toEqual({ finalizers: ['svc'] });
    expect(ns.status).toEqual({ phase: 'Active' });
    const kept = compileKind(namespaceDefinition).default({ metadata: { name: 'team' }, spec: { finalizers: [] } }) as unknown as Namespace;
    expect(kept.spec).toEqual({ finalizers: [] });
    expect((compileKind(secretDefinition).default({ metadata: { name: 's' } }) as unknown as Secret).type).toBe('Opaque');
    expect((compileKind(secretDefinition).default({ metadata: { name: 's' }, type: 'svc.io/tls' }) as unknown as Secret).type).toBe('svc.io/tls');
  });

  it('ignores data of the wrong shape instead of throwing', () => {
    const k = compileKind(deploymentDefinition);
    expect(() => k.default({ spec: 'nonsense', metadata: 5 })).not.toThrow();
    expect(() => k.default({ spec: { template: { spec: { containers: 'x' } } } })).not.toThrow();
    expect(k.default(null)).toBeNull();
  });
});
