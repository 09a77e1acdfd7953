import { builtinScheme, type ApiObject, type KindDefinition } from '@svc/api';
import { bumpGeneration, prepareForCreate, prepareForUpdate, statusUpdateOf, validateUpdate } from './object-meta-rules';

const scheme = builtinScheme();
const kind = (resource: string, group = ''): KindDefinition => scheme.byResource({ group, version: 'v1', resource })!;
const now = new Date('2030-05-06T07:08:09.999Z');

describe('prepareForCreate', () => {
  it('sets the server fields and drops what clients may not set', () => {
    const cm: ApiObject = {
      metadata: {
        name: 'a',
        namespace: 'other',
        uid: 'mine',
        resourceVersion: '5',
        deletionTimestamp: 'x',
        deletionGracePeriodSeconds: 3,
        generation: 7,
        creationTimestamp: 'y',
      },
    };
    prepareForCreate(kind('configmaps'), cm, { namespace: 'ns', now, uid: 'u-1' });
    expect(cm.metadata).toEqual({ name: 'a', namespace: 'ns', uid: 'u-1', creationTimestamp: '2030-05-06T07:08:09Z' });
  });

  it('starts generation at 1 and resets status for kinds with a status subresource', () => {
    const deployment: ApiObject = { metadata: { name: 'd' }, spec: { replicas: 1 }, status: { replicas: 9 } };
    prepareForCreate(kind('deployments', 'apps'), deployment, { namespace: 'ns', now, uid: 'u' });
    expect(deployment.metadata?.generation).toBe(1);
    // The client's status is gone; the Deployment strategy's initial one (Go's empty struct) is there.
    expect(deployment.status).toEqual({});
    const pod: ApiObject = { metadata: { name: 'p' }, status: { phase: 'Running' } };
    prepareForCreate(kind('pods'), pod, { namespace: 'ns', now, uid: 'u' });
    expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('gives namespaces the svc finalizer and drops the namespace of cluster-scoped objects', () => {
    const ns: ApiObject = { metadata: { name: 'team', namespace: 'x' }, spec: { finalizers: ['other'] } };
    prepareForCreate(kind('namespaces'), ns, { namespace: '', now, uid: 'u' });
    expect(ns.spec).toEqual({ finalizers: ['other', 'svc'] });
    expect(ns.metadata?.namespace).toBeUndefined();
    expect(ns.status).toEqual({ phase: 'Active' });
  });
});

describe('prepareForUpdate and generation', () => {
  const deployments = kind('deployments', 'apps');
  const stored: ApiObject = {
    metadata: { name: 'd', namespace: 'ns', uid: 'u', creationTimestamp: 't', generation: 3, resourceVersion: '10' },
    spec: { replicas: 1 },
    status: { replicas: 1 },
  };

  it('keeps uid, creation time, namespace and the stored status; bumps generation on a spec change', () => {
    const next: ApiObject = { metadata: { name: 'd', namespace: 'ns', creationTimestamp: 'changed' }, spec: { replicas: 2 }, status: { replicas: 50 } };
    prepareForUpdate(deployments, next, stored);
    expect(next.metadata).toMatchObject({ uid: 'u', creationTimestamp: 't', generation: 4, namespace: 'ns' });
    expect(next.status).toEqual({ replicas: 1 });
  });

  it('keeps generation when only metadata or status change', () => {
    const next: ApiObject = { metadata: { name: 'd', labels: { a: 'b' } }, spec: { replicas: 1 } };
    prepareForUpdate(deployments, next, stored);
    expect(next.metadata?.generation).toBe(3);
    const status = statusUpdateOf(deployments, { metadata: { resourceVersion: '10' }, spec: { replicas: 99 }, status: { replicas: 7 } }, stored);
    bumpGeneration(deployments, status, stored);
    expect(status).toMatchObject({ spec: { replicas: 1 }, status: { replicas: 7 }, metadata: { generation: 3 } });
  });

  it('does not keep a generation for kinds without status subresource', () => {
    const next: ApiObject = { metadata: { name: 'c', generation: 5 }, data: { a: '2' } };
    prepareForUpdate(kind('configmaps'), next, { metadata: { name: 'c' }, data: { a: '1' } });
    expect(next.metadata?.generation).toBeUndefined();
  });
});

describe('statusUpdateOf', () => {
  const stored = (extra: Record<string, unknown> = {}): ApiObject => ({
    metadata: { name: 'x', uid: 'u', labels: { app: 'old' }, annotations: { note: 'old' }, ownerReferences: [], ...extra },
    spec: { replicas: 1 },
    status: { replicas: 0 },
  });
  const incoming: ApiObject = {
    metadata: { name: 'x', uid: 'other', labels: { app: 'new' }, annotations: { note: 'new' } },
    spec: { replicas: 5 },
    status: { replicas: 3 },
  };

  it("takes a built-in kind's status, labels and annotations from the request and keeps the rest", () => {
    const next = statusUpdateOf(kind('replicasets', 'apps'), incoming, stored());
    expect(next).toMatchObject({
      spec: { replicas: 1 },
      status: { replicas: 3 },
      metadata: { uid: 'u', labels: { app: 'new' }, annotations: { note: 'new' } },
    });
  });

  it("keeps a Deployment's labels, as Kubernetes does, but takes its annotations", () => {
    const next = statusUpdateOf(kind('deployments', 'apps'), incoming, stored());
    expect(next.metadata).toMatchObject({ labels: { app: 'old' }, annotations: { note: 'new' } });
  });

  it('changes only the status of a custom resource', () => {
    const crdKind = {
      ...kind('configmaps'),
      source: { type: 'crd', name: 'widgets.example.com' },
      strategy: { tracksGeneration: true, status: { resetFields: [['spec'], ['metadata', 'labels'], ['metadata', 'annotations']] } },
    } as KindDefinition;
    const next = statusUpdateOf(crdKind, incoming, stored());
    expect(next.metadata).toMatchObject({ labels: { app: 'old' }, annotations: { note: 'old' } });
    expect(next.status).toEqual({ replicas: 3 });
  });
});

describe('validateUpdate', () => {
  it('refuses a changed uid, a hand-set deletionTimestamp and new finalizers on a Terminating object', () => {
    expect(validateUpdate({ metadata: { uid: 'b' } }, { metadata: { uid: 'a' } })).toEqual([
      expect.objectContaining({ type: 'FieldValueInvalid', field: 'metadata.uid', detail: 'field is immutable' }),
    ]);
    expect(validateUpdate({ metadata: { deletionTimestamp: 'x' } }, { metadata: {} })[0]).toMatchObject({ field: 'metadata.deletionTimestamp' });
    const terminating = { metadata: { deletionTimestamp: 'x', finalizers: ['a'] } };
    expect(validateUpdate({ metadata: { finalizers: ['a', 'b'] } }, terminating)[0]).toMatchObject({
      type: 'FieldValueForbidden',
      field: 'metadata.finalizers',
    });
    expect(validateUpdate({ metadata: { finalizers: [] } }, terminating)).toEqual([]);
  });

  it('keeps the selector of apps/v1 workloads immutable', () => {
    const old = { spec: { selector: { matchLabels: { app: 'a' } } } };
    const rules = (resource: string) => (object: ApiObject, current: ApiObject) => kind(resource, 'apps').strategy.validateUpdate!(object, current);
    expect(rules('deployments')({ spec: { selector: { matchLabels: { app: 'b' } } } }, old)[0]).toMatchObject({
      field: 'spec.selector',
    });
    expect(rules('replicasets')(old, old)).toEqual([]);
  });
});
