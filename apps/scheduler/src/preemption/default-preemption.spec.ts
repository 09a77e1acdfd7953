import type { Pod, PodDisruptionBudget } from '@svc/api';
import type { SchedulerCache } from '../cache/scheduler-cache';
import { FitError } from '../framework/fit-error';
import { Framework } from '../framework/framework';
import { DEFAULT_FILTERS, DEFAULT_SCORERS } from '../plugins/default-plugins';
import { clusterOf, cycleFor, testNode, testPod } from '../testing/plugin-fixtures';
import { DefaultPreemption, numCandidates, type PreemptionResult } from './default-preemption';

const framework = new Framework(DEFAULT_FILTERS, DEFAULT_SCORERS);

function low(name: string, node: string, cpu: string, labels?: Record<string, string>, priority = 1): Pod {
  return testPod(name, { node, requests: { cpu }, labels, spec: { priority } });
}

function preemptor(cpu: string, spec: Partial<Pod['spec']> = {}, status?: Pod['status']): Pod {
  const pod = testPod('preemptor', { requests: { cpu }, spec: { priority: 100, ...spec } });
  if (status) pod.status = status;
  return pod;
}

/** Schedules `pod` (it must fit nowhere), then runs preemption as the scheduler does. */
function preempt(cache: SchedulerCache, pod: Pod, budgets: PodDisruptionBudget[] = []): PreemptionResult {
  const state = cycleFor(cache, pod);
  let fitError: FitError | undefined;
  try {
    framework.schedule(state);
  } catch (error) {
    if (error instanceof FitError) fitError = error;
    else throw error;
  }
  if (fitError === undefined) throw new Error('expected the pod to fit nowhere');
  return new DefaultPreemption(
    framework,
    () => budgets,
    () => 0,
  ).preempt(state, pod, fitError);
}

const protectDb: PodDisruptionBudget = {
  metadata: { name: 'db', namespace: 'default' },
  spec: { selector: { matchLabels: { app: 'db' } } },
  status: { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 },
};

describe('DefaultPreemption', () => {
  it('nominates the node whose victims a PodDisruptionBudget does not protect', () => {
    const cache = clusterOf(
      [testNode('a', { cpu: '2' }), testNode('b', { cpu: '2' })],
      [low('db-0', 'a', '2', { app: 'db' }), low('web-0', 'b', '2', { app: 'web' })],
    );
    const result = preempt(cache, preemptor('2'), [protectDb]);
    expect(result.nominatedNodeName).toBe('b');
    expect(result.candidate?.victims).toMatchObject({ pdbViolations: 0, pods: [{ key: 'default/web-0' }] });
  });

  it('still preempts when every candidate violates a budget', () => {
    const cache = clusterOf([testNode('a', { cpu: '2' })], [low('db-0', 'a', '2', { app: 'db' })]);
    expect(preempt(cache, preemptor('2'), [protectDb]).candidate?.victims).toMatchObject({ pdbViolations: 1 });
  });

  it('leaves nodes no eviction can cure out, and says why nothing helps', () => {
    const cache = clusterOf(
      [testNode('tainted', { cpu: '2', taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] }), testNode('busy', { cpu: '2' })],
      [low('tenant', 'tainted', '2'), low('peer', 'busy', '2', undefined, 100)],
    );
    expect(preempt(cache, preemptor('2'))).toEqual({
      message: 'preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.',
      nominatedNodeName: '',
    });
  });

  it('never preempts with preemptionPolicy Never, keeping any nomination', () => {
    const cache = clusterOf([testNode('a', { cpu: '2' })], [low('x', 'a', '2')]);
    expect(preempt(cache, preemptor('2', { preemptionPolicy: 'Never' }))).toEqual({
      message: 'preemption: not eligible due to preemptionPolicy=Never.',
      nominatedNodeName: undefined,
    });
  });

  it('waits while victims of its earlier preemption are still leaving its nominated node', () => {
    const going = low('x', 'a', '2');
    going.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z';
    going.status = { conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }] };
    const cache = clusterOf([testNode('a', { cpu: '2' })], [going]);
    expect(preempt(cache, preemptor('2', {}, { nominatedNodeName: 'a' }))).toEqual({
      message: 'preemption: not eligible due to a terminating pod on the nominated node.',
      nominatedNodeName: undefined,
    });
  });

  it('dry-runs at least 100 nodes or 10% of them, never more than there are', () => {
    expect(numCandidates(3)).toBe(3);
    expect(numCandidates(500)).toBe(100);
    expect(numCandidates(5000)).toBe(500);
  });
});
