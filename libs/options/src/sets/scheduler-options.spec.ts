import { FlagError } from '../flag-set/flag-error';
import { renderHelp } from '../flag-set/help';
import { SCHEDULER_FLAGS } from './scheduler-flags';
import { parseSchedulerOptions } from './scheduler-options';

function run(...argv: string[]) {
  const outcome = parseSchedulerOptions(argv);
  if (outcome.action !== 'run') throw new Error(`expected run, got ${outcome.action}`);
  return outcome.options;
}

function failure(...argv: string[]): string {
  try {
    parseSchedulerOptions(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(FlagError);
    return (error as FlagError).message;
  }
  throw new Error(`expected ${JSON.stringify(argv)} to fail`);
}

describe('scheduler options', () => {
  it("default to kube-scheduler's, with the lease svc-scheduler in svc-system", () => {
    expect(run()).toMatchObject({
      securePort: 10259,
      bindAddress: '0.0.0.0',
      svcApiQps: 50,
      svcApiBurst: 100,
      leaderElect: true,
      leaderElectLeaseDuration: 15_000,
      leaderElectRenewDeadline: 10_000,
      leaderElectRetryPeriod: 2_000,
      leaderElectResourceLock: 'leases',
      leaderElectResourceName: 'svc-scheduler',
      leaderElectResourceNamespace: 'svc-system',
      schedulerName: 'default-scheduler',
      percentageOfNodesToScore: 0,
      podInitialBackoffSeconds: 1,
      podMaxBackoffSeconds: 10,
      podMaxInUnschedulablePodsDuration: 300_000,
      authorizationAlwaysAllowPaths: ['/healthz', '/readyz', '/livez'],
    });
  });

  it('checks the leader election durations, the backoffs and the lock', () => {
    expect(failure('--leader-elect-renew-deadline=20s')).toContain('must be less than or equal to --leader-elect-lease-duration (15s)');
    expect(failure('--pod-initial-backoff-seconds=20')).toContain('--pod-max-backoff-seconds');
    expect(failure('--leader-elect-resource-lock=endpointsleases')).toContain('must be one of: leases');
    expect(failure('--percentage-of-nodes-to-score=101')).toContain('between 0 and 100');
    expect(failure('--scheduler-name=')).toContain('must not be empty');
    expect(failure('--config=x.yaml')).toContain('--config');
  });

  it('lists its flags in help with their defaults', () => {
    const help = renderHelp(SCHEDULER_FLAGS);
    expect(help).toContain('--secure-port int');
    expect(help).toContain('(default 10259)');
    expect(help).toContain('(default "svc-scheduler")');
    expect(help).toContain('--svc-api-qps float');
  });
});
