import type { ControllerRevision, DaemonSet, Pod } from '@svc/api';
import { newRevision, revisionData, revisionMatches, revisionsToCleanUp, revisionToKeep } from './daemonset-revisions';

function ds(image = 'i', collisionCount?: number): DaemonSet {
  return {
    metadata: { name: 'agent', namespace: 'ns', uid: 'u', annotations: { note: 'x' } },
    spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image }] } } },
    ...(collisionCount !== undefined ? { status: { collisionCount } } : {}),
  };
}

const revision = (name: string, number: number, hash: string): ControllerRevision => ({
  metadata: { name, labels: { 'controller-revision-hash': hash }, creationTimestamp: '2026-01-01T00:00:00Z' },
  revision: number,
});
const podWithHash = (hash: string): Pod => ({ metadata: { labels: { 'controller-revision-hash': hash } }, spec: { containers: [] } });

describe("a DaemonSet's revisions", () => {
  it('record a patch that puts the whole template back, and match the template they were made from', () => {
    expect(revisionData(ds())).toEqual({
      spec: { template: { $patch: 'replace', metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
    });
    const made = newRevision(ds(), 3);
    expect(revisionMatches(ds(), made)).toBe(true);
    expect(revisionMatches(ds('j'), made)).toBe(false);
    const hash = made.metadata!.labels!['controller-revision-hash'];
    expect(made).toMatchObject({
      revision: 3,
      metadata: {
        name: `agent-${hash}`,
        namespace: 'ns',
        labels: { a: 'b' },
        annotations: { note: 'x' },
        ownerReferences: [{ kind: 'DaemonSet', uid: 'u', controller: true }],
      },
    });
  });

  it('are named from the template hash salted by the collision count', () => {
    expect(newRevision(ds(), 1).metadata?.name).not.toBe(newRevision(ds('i', 1), 1).metadata?.name);
    expect(newRevision(ds(), 1).metadata?.name).toBe(newRevision(ds(), 2).metadata?.name);
  });

  it('keep the newest of duplicates', () => {
    expect(revisionToKeep([revision('x', 2, 'h'), revision('y', 5, 'h'), revision('z', 4, 'h')]).metadata?.name).toBe('y');
  });

  it('beyond revisionHistoryLimit go oldest first, never one a pod still runs; live ones count towards the limit', () => {
    const old = [revision('r1', 1, 'h1'), revision('r2', 2, 'h2'), revision('r3', 3, 'h3'), revision('r4', 4, 'h4')];
    expect(revisionsToCleanUp(old, 2, []).map((r) => r.metadata?.name)).toEqual(['r1', 'r2']);
    expect(revisionsToCleanUp(old, 2, [podWithHash('h1')]).map((r) => r.metadata?.name)).toEqual(['r2', 'r3']);
    expect(revisionsToCleanUp(old, 4, [])).toEqual([]);
  });
});
