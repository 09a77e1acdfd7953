import type { ApiObject, KindDefinition } from '../kind-definition';
import { compileKind } from '../../schema/compile-kind';
import { BUILTIN_KINDS } from '../builtin-scheme';
import { statusWriteTakes } from '../kind-strategy';

// Every built-in kind's strategy, table by table: what a create sets, what an update may not change,
// what a delete answers and waits for, and the subresources of its own. Kinds absent from a table
// keep the generic behaviour, which the table asserts too.

const byKind = new Map(BUILTIN_KINDS.map((d) => [d.kind, d]));
const def = (kind: string): KindDefinition => byKind.get(kind)!;
const clone = <T>(value: T): T => structuredClone(value);

describe('kind strategies', () => {
  const returnsObject = ['Pod', 'Service', 'Namespace', 'ServiceAccount'];
  it.each(BUILTIN_KINDS.map((d) => [d.kind, returnsObject.includes(d.kind)] as const))('%s answers a delete with the object: %s', (kind, expected) => {
    expect(def(kind).strategy.returnDeletedObject === true).toBe(expected);
  });

  it.each(BUILTIN_KINDS.map((d) => [d.kind, d.kind !== 'Node'] as const))('%s clears the status a client sends on create: %s', (kind, expected) => {
    expect(def(kind).strategy.resetStatusOnCreate !== false).toBe(expected);
  });

  it.each<[string, ApiObject, ApiObject]>([
    ['Pod', { metadata: { name: 'p' } }, { metadata: { name: 'p' }, status: { phase: 'Pending', qosClass: 'BestEffort' } }],
    [
      'Pod',
      // The registry defaults a pod (a limit without a request is the request) before its strategy sees it.
      {
        metadata: { name: 'p' },
        spec: {
          enableServiceLinks: true,
          containers: [{ name: 'c', resources: { limits: { cpu: '500m', memory: '48Mi' }, requests: { cpu: '500m', memory: '48Mi' } } }],
        },
      },
      {
        metadata: { name: 'p' },
        spec: {
          enableServiceLinks: true,
          containers: [{ name: 'c', resources: { limits: { cpu: '500m', memory: '48Mi' }, requests: { cpu: '500m', memory: '48Mi' } } }],
        },
        status: { phase: 'Pending', qosClass: 'Guaranteed' },
      },
    ],
    ['Namespace', { metadata: { name: 'n' } }, { metadata: { name: 'n' }, spec: { finalizers: ['svc'] }, status: { phase: 'Active' } }],
    [
      'Namespace',
      { metadata: { name: 'n' }, spec: { finalizers: ['other'] } },
      { metadata: { name: 'n' }, spec: { finalizers: ['other', 'svc'] }, status: { phase: 'Active' } },
    ],
    ['StatefulSet', { metadata: { name: 's' }, status: { replicas: 3 } }, { metadata: { name: 's' }, status: { replicas: 0, availableReplicas: 0 } }],
    [
      'DaemonSet',
      { metadata: { name: 'd', annotations: { 'deprecated.daemonset.template.generation': '7' } } },
      {
        metadata: { name: 'd', annotations: { 'deprecated.daemonset.template.generation': '1' } },
        status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
      },
    ],
    ['CronJob', { metadata: { name: 'c' }, status: { active: [] } }, { metadata: { name: 'c' }, status: {} }],
    // The server makes a Job's selector from its uid, labels its pods with its name and uid, and the
    // Job takes its template's labels, as decoding and reading back from the store do in Kubernetes.
    [
      'Job',
      { metadata: { name: 'j', uid: 'u1' }, spec: { template: { metadata: { labels: { app: 'a' } } } } },
      {
        metadata: { name: 'j', uid: 'u1', labels: { app: 'a' } },
        spec: {
          selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u1' } },
          template: {
            metadata: {
              labels: {
                app: 'a',
                'job-name': 'j',
                'batch.kubernetes.io/job-name': 'j',
                'controller-uid': 'u1',
                'batch.kubernetes.io/controller-uid': 'u1',
              },
            },
          },
        },
        status: {},
      },
    ],
    [
      'Job',
      { metadata: { name: 'j', uid: 'u1' }, spec: { template: {} } },
      {
        metadata: {
          name: 'j',
          uid: 'u1',
          labels: { 'job-name': 'j', 'batch.kubernetes.io/job-name': 'j', 'controller-uid': 'u1', 'batch.kubernetes.io/controller-uid': 'u1' },
        },
        spec: {
          selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u1' } },
          template: {
            metadata: {
              labels: { 'job-name': 'j', 'batch.kubernetes.io/job-name': 'j', 'controller-uid': 'u1', 'batch.kubernetes.io/controller-uid': 'u1' },
            },
          },
        },
        status: {},
      },
    ],
    [
      'Job',
      { metadata: { name: 'j', uid: 'u1' }, spec: { manualSelector: true, selector: { matchLabels: { a: 'b' } }, template: {} } },
      { metadata: { name: 'j', uid: 'u1' }, spec: { manualSelector: true, selector: { matchLabels: { a: 'b' } }, template: {} }, status: {} },
    ],
  ])('%s on create: %j becomes %j', (kind, input, expected) => {
    const object = clone(input);
    def(kind).strategy.prepareForCreate?.(object);
    expect(object).toEqual(expected);
  });

  it('has a create rule for the kinds whose Kubernetes strategy sets an initial status', () => {
    expect(
      BUILTIN_KINDS.filter((d) => d.strategy.prepareForCreate !== undefined)
        .map((d) => d.kind)
        .sort(),
    ).toEqual([
      'CertificateSigningRequest',
      'CronJob',
      'CustomResourceDefinition',
      'DaemonSet',
      'Deployment',
      'HorizontalPodAutoscaler',
      'HorizontalPodAutoscaler',
      'Ingress',
      'Job',
      'Namespace',
      'PersistentVolume',
      'PersistentVolumeClaim',
      'Pod',
      'PodDisruptionBudget',
      'ReplicaSet',
      'ReplicationController',
      'Service',
      'StatefulSet',
      'VolumeAttachment',
    ]);
  });

  const selector = (app: string) => ({ spec: { selector: { matchLabels: { app } } } });
  it.each<[string, ApiObject, ApiObject, string[]]>([
    ['Deployment', selector('a'), selector('a'), []],
    ['Deployment', selector('b'), selector('a'), ['spec.selector']],
    ['ReplicaSet', selector('b'), selector('a'), ['spec.selector']],
    ['ReplicaSet', { spec: {} }, { spec: {} }, []],
    ['DaemonSet', selector('b'), selector('a'), ['spec.selector']],
    ['DaemonSet', selector('a'), selector('a'), []],
    // Only replicas, ordinals, template, updateStrategy, the claim retention policy and minReadySeconds may change.
    ['StatefulSet', { spec: { replicas: 5, serviceName: 'web' } }, { spec: { replicas: 3, serviceName: 'web' } }, []],
    ['StatefulSet', { spec: { serviceName: 'other' } }, { spec: { serviceName: 'web' } }, ['spec']],
    ['StatefulSet', selector('b'), selector('a'), ['spec']],
    ['ControllerRevision', { data: { a: 1 }, revision: 2 }, { data: { a: 1 }, revision: 1 }, []],
    ['ControllerRevision', { data: { a: 2 }, revision: 1 }, { data: { a: 1 }, revision: 1 }, ['data']],
    ['PriorityClass', { value: 10, preemptionPolicy: 'Never' }, { value: 5, preemptionPolicy: 'PreemptLowerPriority' }, ['value', 'preemptionPolicy']],
    ['PriorityClass', { value: 5, description: 'changed' }, { value: 5 }, []],
    [
      'Job',
      { spec: { completions: 3, selector: { matchLabels: { a: 'b' } } } },
      { spec: { completions: 2, selector: { matchLabels: { a: 'c' } } } },
      ['spec.completions', 'spec.selector'],
    ],
    // ElasticIndexedJob: an Indexed Job's completions change together with its parallelism.
    [
      'Job',
      { spec: { completionMode: 'Indexed', completions: 4, parallelism: 4 } },
      { spec: { completionMode: 'Indexed', completions: 2, parallelism: 2 } },
      [],
    ],
    [
      'Job',
      { spec: { completionMode: 'Indexed', completions: 4, parallelism: 2 } },
      { spec: { completionMode: 'Indexed', completions: 2, parallelism: 2 } },
      ['spec.completions'],
    ],
    // A suspended Job that never started may change where its pods go.
    [
      'Job',
      { spec: { suspend: true, template: { spec: { nodeSelector: { zone: 'b' }, containers: [] } } } },
      { spec: { suspend: true, template: { spec: { nodeSelector: { zone: 'a' }, containers: [] } } } },
      [],
    ],
    [
      'Job',
      { spec: { suspend: false, template: { spec: { nodeSelector: { zone: 'b' }, containers: [] } } } },
      { spec: { suspend: false, template: { spec: { nodeSelector: { zone: 'a' }, containers: [] } } } },
      ['spec.template'],
    ],
  ])('%s update %j over %j is refused at %j', (kind, object, current, fields) => {
    expect((def(kind).strategy.validateUpdate?.(object, current) ?? []).map((e) => e.field)).toEqual(fields);
  });

  it("raises a DaemonSet's template generation with each change of its template only", () => {
    const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const current: ApiObject = {
      metadata: { annotations: { 'deprecated.daemonset.template.generation': '3' } },
      spec: { selector: { matchLabels: { app: 'a' } }, template: clone(template) },
    };
    // Stored objects are defaulted; the incoming one is compared as it will be stored.
    compileKind(def('DaemonSet')).default(current);
    const same: ApiObject = { metadata: { annotations: { other: 'x' } }, spec: { selector: { matchLabels: { app: 'a' } }, template: clone(template) } };
    def('DaemonSet').strategy.prepareForUpdate!(same, current);
    expect(same.metadata!.annotations).toEqual({ other: 'x', 'deprecated.daemonset.template.generation': '3' });
    const changed: ApiObject = {
      spec: { selector: { matchLabels: { app: 'a' } }, template: { ...clone(template), metadata: { labels: { app: 'a', v: '2' } } } },
    };
    def('DaemonSet').strategy.prepareForUpdate!(changed, current);
    expect(changed.metadata!.annotations).toEqual({ 'deprecated.daemonset.template.generation': '4' });
  });

  it('keeps the pods of a Job deleted with no propagation policy, as batch/v1 does', () => {
    expect(BUILTIN_KINDS.filter((d) => d.strategy.defaultPropagationPolicy !== undefined).map((d) => [d.kind, d.strategy.defaultPropagationPolicy])).toEqual([
      ['Job', 'Orphan'],
    ]);
  });

  it('bootstraps the system priority classes, and nothing else', () => {
    expect(BUILTIN_KINDS.flatMap((d) => (d.strategy.bootstrapObjects ?? []).map((o) => `${d.kind} ${o.metadata?.name} ${String(o.value)}`))).toEqual([
      'PriorityClass system-node-critical 2000001000',
      'PriorityClass system-cluster-critical 2000000000',
    ]);
  });

  it("keeps a namespace's spec.finalizers on update: only finalize changes them", () => {
    const object: ApiObject = { spec: { finalizers: [] } };
    def('Namespace').strategy.prepareForUpdate!(object, { spec: { finalizers: ['svc'] } });
    expect(object.spec).toEqual({ finalizers: ['svc'] });
    const finalized = def('Namespace').strategy.subresources!.finalize.updateOf!(
      { metadata: { resourceVersion: '7' }, spec: { finalizers: [] }, status: { phase: 'Active' } },
      { metadata: { name: 'n', resourceVersion: '7' }, spec: { finalizers: ['svc'] }, status: { phase: 'Terminating' } },
    );
    expect(finalized).toEqual({ metadata: { name: 'n', resourceVersion: '7' }, spec: { finalizers: [] }, status: { phase: 'Terminating' } });
  });

  it.each<[string, string[]]>([
    ['Deployment', ['annotations']],
    ['Pod', ['labels', 'annotations']],
    ['ReplicaSet', ['labels', 'annotations']],
    ['ValidatingAdmissionPolicy', []],
  ])('%s status writes take the metadata %j', (kind, fields) => {
    const status = def(kind).strategy.status;
    expect((['labels', 'annotations'] as const).filter((field) => statusWriteTakes(status, field))).toEqual(fields);
  });

  it.each<[ApiObject, number | undefined, number]>([
    [{ spec: { nodeName: 'n1' }, status: { phase: 'Running' } }, undefined, 30],
    [{ spec: { nodeName: 'n1', terminationGracePeriodSeconds: 5 }, status: { phase: 'Running' } }, undefined, 5],
    [{ spec: { nodeName: 'n1' }, status: { phase: 'Running' } }, 0, 0],
    [{ spec: { nodeName: 'n1' }, status: { phase: 'Succeeded' } }, 10, 0],
    [{ spec: {}, status: { phase: 'Pending' } }, 10, 0],
  ])('a pod %j deleted with grace %s waits %s s for its node agent', (pod, requested, seconds) => {
    expect(def('Pod').strategy.deletionGracePeriodSeconds!(pod, requested)).toBe(seconds);
  });

  it('holds a deleted namespace by its spec.finalizers and marks it Terminating', () => {
    const namespace: ApiObject = { spec: { finalizers: ['svc'] }, status: { phase: 'Active' } };
    expect(def('Namespace').strategy.pendingFinalizers!(namespace)).toEqual(['svc']);
    def('Namespace').strategy.onDeletionMarked!(namespace);
    expect(namespace.status).toEqual({ phase: 'Terminating' });
  });

  it('serves subresources of its own only for namespaces (finalize), pods (binding, eviction, ephemeralcontainers) and certificate signing requests (approval)', () => {
    expect(BUILTIN_KINDS.flatMap((d) => Object.keys(d.strategy.subresources ?? {}).map((s) => `${d.resource}/${s}`))).toEqual([
      'namespaces/finalize',
      'pods/binding',
      'pods/ephemeralcontainers',
      'pods/eviction',
      'certificatesigningrequests/approval',
    ]);
  });
});
