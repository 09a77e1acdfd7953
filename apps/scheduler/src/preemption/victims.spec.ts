import type { Pod, PodDisruptionBudget } from '@svc/api';
import { podInfoOf } from '../cache/pod-info';
import { Framework } from '../framework/framework';
import { CycleState, type Refusal } from '../framework/plugin';
import { DEFAULT_FILTERS, DEFAULT_SCORERS } from '../plugins/default-plugins';
import { clusterOf, cycleFor, testNode, testPod } from '../testing/plugin-fixtures';
import { ERR_NO_VICTIMS, byImportance, isRefusal, selectVictimsOnNode, splitByBudgetViolation, type Victims } from './victims';

const framework = new Framework(DEFAULT_FILTERS, DEFAULT_SCORERS);
const NOW = Date.parse('2026-01-01T12:00:00Z');

function running(
  name: string,
  priority: number,
  cpu: string,
  options: { startedMinutesAgo?: number; labels?: Record<string, string>; node?: string } = {},
): Pod {
  const pod = testPod(name, { node: options.node ?? 'n1', requests: { cpu }, labels: options.labels, spec: { priority } });
  if (options.startedMinutesAgo !== undefined) pod.status = { startTime: new Date(NOW - options.startedMinutesAgo * 60_000).toISOString() };
  return pod;
}

function preemptor(priority: number, cpu: string, spec: Partial<Pod['spec']> = {}): Pod {
  return testPod('preemptor', { requests: { cpu }, spec: { priority, ...spec } });
}

function budget(selector: Record<string, string>, disruptionsAllowed: number, disruptedPods?: Record<string, string>): PodDisruptionBudget {
  return {
    metadata: { name: `pdb-${Object.values(selector).join('-')}`, namespace: 'default' },
    spec: { selector: { matchLabels: selector } },
    status: { disruptionsAllowed, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptedPods },
  };
}

/** The victims on n1 (4 CPUs) for the preemptor, by name, or the refusal. */
function victimsOn(pods: Pod[], incoming: Pod, budgets: PodDisruptionBudget[] = [], cpu = '4'): Victims | Refusal {
  const cache = clusterOf([testNode('n1', { cpu })], pods);
  const state = cycleFor(cache, incoming);
  for (const f of DEFAULT_FILTERS) f.preFilter?.(state);
  return selectVictimsOnNode(framework, state.clone(), cache.node('n1')!.clone(), budgets, NOW);
}

function names(outcome: Victims | Refusal): string[] {
  if (isRefusal(outcome)) throw new Error(`refused: ${outcome.reasons.join(', ')}`);
  return outcome.pods.map((p) => p.pod.metadata!.name!);
}

describe('selecting victims on a node', () => {
  it('evicts the fewest pods, lowest priority first, and reprieves every pod it can', () => {
    const pods = [running('low-a', 1, '1'), running('low-b', 1, '1'), running('mid', 5, '1'), running('high', 100, '1')];
    // The preemptor needs 2 CPUs: two pods go; those of the lowest priority are the ones.
    expect(names(victimsOn(pods, preemptor(10, '2')))).toEqual(['low-a', 'low-b']);
    // Needing 3: the mid pod goes as well; the higher-priority pod is never a candidate.
    expect(names(victimsOn(pods, preemptor(10, '3')))).toEqual(['mid', 'low-a', 'low-b']);
  });

  it('lists victims most important first: higher priority, then the one running longer', () => {
    const pods = [running('young', 1, '1', { startedMinutesAgo: 1 }), running('old', 1, '1', { startedMinutesAgo: 60 }), running('mid', 2, '1')];
    expect(names(victimsOn(pods, preemptor(10, '4')))).toEqual(['mid', 'old', 'young']);
    // With room for one of the two equal pods, the one running longer is reprieved.
    const equal = [running('young', 1, '1', { startedMinutesAgo: 1 }), running('old', 1, '1', { startedMinutesAgo: 60 }), running('keeper', 20, '1')];
    expect(names(victimsOn(equal, preemptor(10, '2')))).toEqual(['young']);
  });

  it('never evicts pods of equal or higher priority', () => {
    const outcome = victimsOn([running('same', 10, '2'), running('higher', 20, '2')], preemptor(10, '1'));
    expect(outcome).toEqual({ plugin: 'DefaultPreemption', reasons: [ERR_NO_VICTIMS], unresolvable: true });
  });

  it('refuses a node where even evicting every lower-priority pod leaves too little', () => {
    const outcome = victimsOn([running('low', 1, '1'), running('keeper', 50, '2')], preemptor(10, '3'));
    expect(outcome).toMatchObject({ reasons: ['Insufficient cpu'], unresolvable: false });
  });

  it('reprieves the pods a budget protects before the others, counting the violations it cannot avoid', () => {
    const pods = [running('guarded', 1, '2', { labels: { app: 'db' } }), running('free', 1, '2', { labels: { app: 'web' } })];
    // Either pod would do; the one the budget (no disruption allowed) protects stays.
    expect(victimsOn(pods, preemptor(10, '2'), [budget({ app: 'db' }, 0)])).toMatchObject({ pdbViolations: 0 });
    expect(names(victimsOn(pods, preemptor(10, '2'), [budget({ app: 'db' }, 0)]))).toEqual(['free']);
    // Both must go: the budget is violated once.
    expect(victimsOn(pods, preemptor(10, '4'), [budget({ app: 'db' }, 0)])).toMatchObject({ pdbViolations: 1 });
  });

  it('keeps the room of pods nominated to the node at the preemptor priority or above', () => {
    const cache = clusterOf([testNode('n1', { cpu: '4' })], [running('low', 1, '2'), running('low2', 1, '2')]);
    const nominated = podInfoOf(testPod('nominated', { requests: { cpu: '2' }, spec: { priority: 10 } }));
    const state = new CycleState(podInfoOf(preemptor(10, '2')), cache, () => undefined, { forNode: (name) => (name === 'n1' ? [nominated] : []) });
    // Without the nominated pod one eviction would do; with it both go.
    expect(names(selectVictimsOnNode(framework, state, cache.node('n1')!.clone(), [], NOW))).toEqual(['low', 'low2']);
  });
});

describe('budget violations', () => {
  const pod = (name: string, labels?: Record<string, string>, namespace = 'default') => podInfoOf(testPod(name, { labels, namespace }));

  it('counts each budget down as the pods before are evicted', () => {
    const pods = [pod('a', { app: 'db' }), pod('b', { app: 'db' }), pod('c', { app: 'db' })];
    const [violating, nonViolating] = splitByBudgetViolation(pods, [budget({ app: 'db' }, 1)]);
    expect(nonViolating.map((p) => p.key)).toEqual(['default/a']);
    expect(violating.map((p) => p.key)).toEqual(['default/b', 'default/c']);
  });

  it('ignores pods without labels, of other namespaces, already disrupted, and budgets with an empty selector', () => {
    const pods = [pod('bare'), pod('elsewhere', { app: 'db' }, 'other'), pod('disrupted', { app: 'db' }), pod('any', { x: 'y' })];
    const budgets = [budget({ app: 'db' }, 0, { disrupted: '2026-01-01T00:00:00Z' }), { ...budget({}, 0), spec: { selector: {} } } as PodDisruptionBudget];
    const [violating] = splitByBudgetViolation(pods, budgets);
    expect(violating).toEqual([]);
  });
});

describe('importance', () => {
  it('orders by priority, then by the earlier start; a pod not started counts as starting now', () => {
    const pods = [running('new', 1, '1'), running('old', 1, '1', { startedMinutesAgo: 5 }), running('top', 9, '1')].map(podInfoOf);
    expect(byImportance(pods, NOW).map((p) => p.pod.metadata!.name)).toEqual(['top', 'old', 'new']);
  });
});
