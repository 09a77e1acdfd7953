import type { JobSpec, Pod } from '@svc/api';
import { matchPodFailurePolicy } from './pod-failure-policy';

type Policy = NonNullable<JobSpec['podFailurePolicy']>;

function failed(exitCodes: Record<string, number>, conditions: Array<{ type: string; status: 'True' | 'False' }> = [], init: Record<string, number> = {}): Pod {
  const statuses = (codes: Record<string, number>) => Object.entries(codes).map(([name, exitCode]) => ({ name, state: { terminated: { exitCode } } }));
  return {
    metadata: { namespace: 'ns', name: 'p' },
    spec: { containers: [] },
    status: { phase: 'Failed', containerStatuses: statuses(exitCodes), initContainerStatuses: statuses(init), conditions },
  };
}

describe('matchPodFailurePolicy', () => {
  const policy: Policy = {
    rules: [
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
      { action: 'Count', onExitCodes: { operator: 'NotIn', values: [1, 2] } },
      { action: 'FailIndex', onExitCodes: { operator: 'In', values: [2] } },
    ],
  };

  it('counts every failure without a policy', () => {
    expect(matchPodFailurePolicy(undefined, failed({ main: 1 }))).toEqual({ countFailed: true });
  });

  it('fails the Job on a FailJob rule with Kubernetes message', () => {
    expect(matchPodFailurePolicy(policy, failed({ main: 42 }))).toEqual({
      action: 'FailJob',
      countFailed: true,
      failJobMessage: 'Container main for pod ns/p failed with exit code 42 matching FailJob rule at index 1',
    });
  });

  it('takes the first rule that matches, in order', () => {
    expect(matchPodFailurePolicy(policy, failed({ main: 42 }, [{ type: 'DisruptionTarget', status: 'True' }]))).toEqual({
      action: 'Ignore',
      countFailed: false,
    });
  });

  it('matches the container named only, exit code 0 never, and init containers too', () => {
    expect(matchPodFailurePolicy(policy, failed({ side: 42 })).action).toBe('Count');
    expect(matchPodFailurePolicy(policy, failed({ main: 0, side: 1 }))).toEqual({ countFailed: true });
    expect(matchPodFailurePolicy(policy, failed({}, [], { main: 42 })).action).toBe('FailJob');
  });

  it('NotIn matches non-zero codes outside the list; FailIndex counts the failure', () => {
    expect(matchPodFailurePolicy(policy, failed({ main: 5 }))).toEqual({ action: 'Count', countFailed: true });
    expect(matchPodFailurePolicy(policy, failed({ main: 2 }))).toEqual({ action: 'FailIndex', countFailed: true });
  });

  it('matches a condition only with the status the pattern names', () => {
    expect(matchPodFailurePolicy(policy, failed({ main: 1 }, [{ type: 'DisruptionTarget', status: 'False' }]))).toEqual({ countFailed: true });
    const onCondition: Policy = { rules: [{ action: 'FailJob', onPodConditions: [{ type: 'ConfigIssue', status: 'True' }] }] };
    expect(matchPodFailurePolicy(onCondition, failed({ main: 1 }, [{ type: 'ConfigIssue', status: 'True' }])).failJobMessage).toBe(
      'Pod ns/p has condition ConfigIssue matching FailJob rule at index 0',
    );
  });
});
