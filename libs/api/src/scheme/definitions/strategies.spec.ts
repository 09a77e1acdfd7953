import type { ApiObject, KindDefinition } from '../kind-definition';
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
    ).toEqual(['CustomResourceDefinition', 'Deployment', 'Namespace', 'Pod', 'PodDisruptionBudget', 'ReplicaSet', 'ReplicationController', 'Service']);
  });

  const selector = (app: string) => ({ spec: { selector: { matchLabels: { app } } } });
  it.each<[string, ApiObject, ApiObject, string[]]>([
    ['Deployment', selector('a'), selector('a'), []],
    ['Deployment', selector('b'), selector('a'), ['spec.selector']],
    ['ReplicaSet', selector('b'), selector('a'), ['spec.selector']],
    ['ReplicaSet', { spec: {} }, { spec: {} }, []],
  ])('%s update %j over %j is refused at %j', (kind, object, current, fields) => {
    expect((def(kind).strategy.validateUpdate?.(object, current) ?? []).map((e) => e.field)).toEqual(fields);
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

  it('serves subresources of its own only for namespaces (finalize) and pods (binding, eviction)', () => {
    expect(BUILTIN_KINDS.flatMap((d) => Object.keys(d.strategy.subresources ?? {}).map((s) => `${d.resource}/${s}`))).toEqual([
      'namespaces/finalize',
      'pods/binding',
      'pods/eviction',
    ]);
  });
});
