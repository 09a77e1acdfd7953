import type { ReplicaSet } from '@svc/api';
import { claimDecision } from './claim-pods';
import { podFromTemplate, podNamePrefix } from './pod-from-template';
import { LabelQuery } from '@svc/machinery';

const rs: ReplicaSet = {
  metadata: { name: 'web', namespace: 'ns', uid: 'rs-uid', labels: { owner: 'me' }, annotations: { note: 'rs' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { name: 'ignored', labels: { app: 'web' }, annotations: { a: 'b' }, finalizers: ['example.com/keep'] },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    },
  },
};

describe('pods from the template', () => {
  it('carry the template labels, annotations, finalizers and spec, a generated name and the controller reference', () => {
    expect(podFromTemplate(rs)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        namespace: 'ns',
        generateName: 'web-',
        labels: { app: 'web' },
        annotations: { a: 'b' },
        finalizers: ['example.com/keep'],
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-uid', controller: true, blockOwnerDeletion: true }],
      },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
  });

  it('drop the dash of the name prefix when it would make the prefix invalid', () => {
    expect(podNamePrefix('web')).toBe('web-');
    expect(podNamePrefix('a'.repeat(253))).toBe('a'.repeat(253));
  });
});

describe('claim decisions', () => {
  const selector = LabelQuery.fromLabelSelector(rs.spec.selector);
  const pod = (labels: Record<string, string>, controllerUid?: string, deleting = false) => ({
    metadata: {
      name: 'p',
      namespace: 'ns',
      labels,
      ...(deleting ? { deletionTimestamp: '2030-01-01T00:00:00Z' } : {}),
      ...(controllerUid ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid: controllerUid, controller: true }] } : {}),
    },
    spec: { containers: [] },
  });
  const deletingRs = { ...rs, metadata: { ...rs.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' } };

  it('keeps its matching pods and releases its pods that stopped matching', () => {
    expect(claimDecision(pod({ app: 'web' }, 'rs-uid'), rs, selector)).toBe('keep');
    expect(claimDecision(pod({ app: 'other' }, 'rs-uid'), rs, selector)).toBe('release');
    expect(claimDecision(pod({ app: 'other' }, 'rs-uid'), deletingRs, selector)).toBe('ignore');
  });

  it('adopts matching orphans that are not being deleted, unless it is being deleted itself', () => {
    expect(claimDecision(pod({ app: 'web' }), rs, selector)).toBe('adopt');
    expect(claimDecision(pod({ app: 'web' }, undefined, true), rs, selector)).toBe('ignore');
    expect(claimDecision(pod({ app: 'other' }), rs, selector)).toBe('ignore');
    expect(claimDecision(pod({ app: 'web' }), deletingRs, selector)).toBe('ignore');
  });

  it('never touches pods of another controller', () => {
    expect(claimDecision(pod({ app: 'web' }, 'someone-else'), rs, selector)).toBe('ignore');
    expect(claimDecision(pod({ app: 'other' }, 'someone-else'), rs, selector)).toBe('ignore');
  });
});
