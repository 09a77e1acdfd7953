import type { Pod } from '@svc/api';
import { orphanPodChanged } from './orphan-pod-watch';

const pod = (labels: Record<string, string>, controllerUid?: string): Pod => ({
  metadata: {
    name: 'p',
    namespace: 'ns',
    labels,
    ...(controllerUid ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: controllerUid, controller: true }] } : {}),
  },
  spec: { containers: [] },
});

describe('the orphan pod watch', () => {
  it('passes new pods and changes of labels or controller, not other updates or deletes', () => {
    expect(orphanPodChanged({ type: 'create', object: pod({ app: 'a' }) })).toBe(true);
    expect(orphanPodChanged({ type: 'delete', object: pod({ app: 'a' }) })).toBe(false);
    expect(orphanPodChanged({ type: 'update', oldObject: pod({ app: 'a' }), object: pod({ app: 'a' }) })).toBe(false);
    expect(orphanPodChanged({ type: 'update', oldObject: pod({ app: 'a' }), object: pod({ app: 'b' }) })).toBe(true);
    expect(orphanPodChanged({ type: 'update', oldObject: pod({ app: 'a' }, 'u'), object: pod({ app: 'a' }) })).toBe(true);
  });
});
