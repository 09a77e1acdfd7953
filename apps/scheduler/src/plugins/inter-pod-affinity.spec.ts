import type { Pod } from '@svc/api';
import type { NamespaceLabels } from '../framework/affinity';
import { clusterOf, cycleFor, filterNodes, testNode, testPod } from '../testing/plugin-fixtures';
import { ERR_AFFINITY, ERR_ANTI_AFFINITY, ERR_EXISTING_ANTI_AFFINITY, interPodAffinity } from './inter-pod-affinity';

const HOST = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

/** Three nodes in two zones, and one with no zone label. */
const nodes = [
  testNode('a1', { labels: { [ZONE]: 'a' } }),
  testNode('a2', { labels: { [ZONE]: 'a' } }),
  testNode('b1', { labels: { [ZONE]: 'b' } }),
  testNode('nozone'),
];

function term(topologyKey: string, matchLabels: Record<string, string>, extra: Record<string, unknown> = {}) {
  return { topologyKey, labelSelector: { matchLabels }, ...extra };
}

function withAffinity(name: string, kind: 'podAffinity' | 'podAntiAffinity', terms: unknown[], options: Parameters<typeof testPod>[1] = {}): Pod {
  return testPod(name, { ...options, spec: { ...options.spec, affinity: { [kind]: { requiredDuringSchedulingIgnoredDuringExecution: terms } } } });
}

function outcomes(placed: Pod[], incoming: Pod, namespaceLabels?: NamespaceLabels) {
  return filterNodes(interPodAffinity, cycleFor(clusterOf(nodes, placed), incoming, namespaceLabels));
}

describe('InterPodAffinity: the incoming pod’s affinity', () => {
  const cache = testPod('cache', { node: 'a1', labels: { app: 'cache' } });

  it('needs a pod its terms select in the same topology domain', () => {
    const web = withAffinity('web', 'podAffinity', [term(ZONE, { app: 'cache' })]);
    expect(outcomes([cache], web)).toEqual({ a1: undefined, a2: undefined, b1: ERR_AFFINITY, nozone: ERR_AFFINITY });
    const sameNode = withAffinity('web', 'podAffinity', [term(HOST, { app: 'cache' })]);
    expect(outcomes([cache], sameNode)).toEqual({ a1: undefined, a2: ERR_AFFINITY, b1: ERR_AFFINITY, nozone: ERR_AFFINITY });
    expect(ERR_AFFINITY).toBe("node(s) didn't match pod affinity rules");
  });

  it('needs every term satisfied by one pod that matches them all', () => {
    const both = withAffinity('web', 'podAffinity', [term(ZONE, { app: 'cache' }), term(HOST, { tier: 'backend' })]);
    const backend = testPod('backend', { node: 'a2', labels: { tier: 'backend' } });
    expect(Object.values(outcomes([cache, backend], both)).every((o) => o === ERR_AFFINITY)).toBe(true);
    const cacheBackend = testPod('cb', { node: 'a2', labels: { app: 'cache', tier: 'backend' } });
    expect(outcomes([cacheBackend], both)).toEqual({ a1: ERR_AFFINITY, a2: undefined, b1: ERR_AFFINITY, nozone: ERR_AFFINITY });
  });

  it('lets the first pod of a group whose affinity selects itself go anywhere the topology key exists', () => {
    const first = withAffinity('first', 'podAffinity', [term(ZONE, { app: 'group' })], { labels: { app: 'group' } });
    expect(outcomes([], first)).toEqual({ a1: undefined, a2: undefined, b1: undefined, nozone: ERR_AFFINITY });
    const stranger = withAffinity('stranger', 'podAffinity', [term(ZONE, { app: 'group' })], { labels: { app: 'other' } });
    expect(Object.values(outcomes([], stranger)).every((o) => o === ERR_AFFINITY)).toBe(true);
  });

  it('looks in its own namespace unless its terms name others or select them by label', () => {
    const elsewhere = testPod('cache', { node: 'b1', namespace: 'infra', labels: { app: 'cache' } });
    const own = withAffinity('web', 'podAffinity', [term(ZONE, { app: 'cache' })]);
    expect(outcomes([elsewhere], own).b1).toBe(ERR_AFFINITY);
    const named = withAffinity('web', 'podAffinity', [term(ZONE, { app: 'cache' }, { namespaces: ['infra'] })]);
    expect(outcomes([elsewhere], named).b1).toBeUndefined();
    const selected = withAffinity('web', 'podAffinity', [term(ZONE, { app: 'cache' }, { namespaceSelector: { matchLabels: { team: 'infra' } } })]);
    const labels: NamespaceLabels = (ns) => (ns === 'infra' ? { team: 'infra' } : undefined);
    expect(outcomes([elsewhere], selected, labels).b1).toBeUndefined();
    expect(outcomes([elsewhere], selected).b1).toBe(ERR_AFFINITY);
  });
});

describe('InterPodAffinity: the incoming pod’s anti-affinity', () => {
  it('keeps the pod out of domains holding a pod its terms select', () => {
    const replica = testPod('web-1', { node: 'a1', labels: { app: 'web' } });
    const perZone = withAffinity('web-2', 'podAntiAffinity', [term(ZONE, { app: 'web' })], { labels: { app: 'web' } });
    expect(outcomes([replica], perZone)).toEqual({ a1: ERR_ANTI_AFFINITY, a2: ERR_ANTI_AFFINITY, b1: undefined, nozone: undefined });
    const perNode = withAffinity('web-2', 'podAntiAffinity', [term(HOST, { app: 'web' })], { labels: { app: 'web' } });
    expect(outcomes([replica], perNode)).toEqual({ a1: ERR_ANTI_AFFINITY, a2: undefined, b1: undefined, nozone: undefined });
    expect(ERR_ANTI_AFFINITY).toBe("node(s) didn't match pod anti-affinity rules");
  });

  it("adds the pod's own values of matchLabelKeys to the selector", () => {
    const v1 = testPod('web-v1', { node: 'a1', labels: { app: 'web', version: 'v1' } });
    const byVersion = (version: string) =>
      withAffinity('web-new', 'podAntiAffinity', [term(HOST, { app: 'web' }, { matchLabelKeys: ['version'] })], { labels: { app: 'web', version } });
    expect(outcomes([v1], byVersion('v1')).a1).toBe(ERR_ANTI_AFFINITY);
    expect(outcomes([v1], byVersion('v2')).a1).toBeUndefined();
  });
});

describe('InterPodAffinity: placed pods’ anti-affinity', () => {
  it('keeps the pod out of domains where a placed pod’s anti-affinity selects it', () => {
    const loner = withAffinity('loner', 'podAntiAffinity', [term(ZONE, { noisy: 'true' })], { node: 'b1' });
    expect(outcomes([loner], testPod('p', { labels: { noisy: 'true' } }))).toEqual({
      a1: undefined,
      a2: undefined,
      b1: ERR_EXISTING_ANTI_AFFINITY,
      nozone: undefined,
    });
    expect(outcomes([loner], testPod('p', { labels: { noisy: 'false' } })).b1).toBeUndefined();
    expect(ERR_EXISTING_ANTI_AFFINITY).toBe("node(s) didn't satisfy existing pods anti-affinity rules");
  });

  it('checks the placed pods’ anti-affinity before the incoming pod’s own terms', () => {
    const loner = withAffinity('loner', 'podAntiAffinity', [term(HOST, { app: 'web' })], { node: 'a1' });
    const web = withAffinity('web', 'podAffinity', [term(HOST, { app: 'nothing' })], { labels: { app: 'web' } });
    expect(outcomes([loner], web).a1).toBe(ERR_EXISTING_ANTI_AFFINITY);
  });

  it('tries a refused pod again when pods on nodes change, or a node is added or relabelled', () => {
    expect(interPodAffinity.curedBy({ resource: 'AssignedPod', action: 'Delete' })).toBe(true);
    expect(interPodAffinity.curedBy({ resource: 'AssignedPod', action: 'Add' })).toBe(true);
    expect(interPodAffinity.curedBy({ resource: 'AssignedPod', action: 'Update', changes: new Set(['label']) })).toBe(true);
    expect(interPodAffinity.curedBy({ resource: 'Node', action: 'Add' })).toBe(true);
    expect(interPodAffinity.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['label']) })).toBe(true);
    expect(interPodAffinity.curedBy({ resource: 'Node', action: 'Update', changes: new Set(['taint']) })).toBe(false);
  });
});
