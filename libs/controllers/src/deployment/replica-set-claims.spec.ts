import type { ReplicaSet } from '@svc/api';
import { LabelQuery } from '@svc/machinery';
import { planReplicaSetClaims } from './replica-set-claims';
import { deployment, replicaSet } from './testing/fixtures';

const selector = LabelQuery.fromLabelSelector({ matchLabels: { app: 'web' } });
const names = (list: ReplicaSet[]) => list.map((rs) => rs.metadata!.name);

function withLabels(rs: ReplicaSet, labels: Record<string, string>, controllerUid?: string): ReplicaSet {
  rs.metadata!.labels = labels;
  if (controllerUid) rs.metadata!.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: controllerUid, controller: true }];
  return rs;
}

describe('claiming ReplicaSets', () => {
  const mine = () => withLabels(replicaSet('mine', 1), { app: 'web' }, 'd-uid');
  const strayed = () => withLabels(replicaSet('strayed', 1), { app: 'other' }, 'd-uid');
  const orphan = () => withLabels(replicaSet('orphan', 1), { app: 'web' });
  const foreignOrphan = () => withLabels(replicaSet('unselected', 1), { app: 'db' });
  const others = () => withLabels(replicaSet('others', 1), { app: 'web' }, 'someone-else');

  it('keeps its own, adopts selected orphans, releases what it no longer selects, and leaves others alone', () => {
    const plan = planReplicaSetClaims(deployment(1), [mine(), strayed(), orphan(), foreignOrphan(), others()], selector);
    expect({ owned: names(plan.owned), adopt: names(plan.adopt), release: names(plan.release) }).toEqual({
      owned: ['mine'],
      adopt: ['orphan'],
      release: ['strayed'],
    });
  });

  it('neither adopts nor releases while the Deployment is being deleted, and never adopts what is being deleted', () => {
    const d = deployment(1);
    d.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z';
    const plan = planReplicaSetClaims(d, [mine(), strayed(), orphan()], selector);
    expect({ owned: names(plan.owned), adopt: names(plan.adopt), release: names(plan.release) }).toEqual({ owned: ['mine'], adopt: [], release: [] });
    const dying = orphan();
    dying.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z';
    expect(planReplicaSetClaims(deployment(1), [dying], selector).adopt).toEqual([]);
  });
});
