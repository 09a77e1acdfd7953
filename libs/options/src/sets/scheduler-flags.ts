import { duration } from '../flags/duration';
import { int, int32 } from '../flags/int';
import { string } from '../flags/string';
import { strings } from '../flags/strings';
import { flag } from '../flag-set/flag';
import { flagTable, helpFlag, versionFlag, type OptionsOf } from '../flag-set/flag-set';
import { atLeast, between, durationAbove, nonEmpty } from './checks';
import { clientFlags, featureGatesFlag, leaderElectionFlags, LOG_FLAGS, METRICS_FLAGS, PROFILING_FLAGS, SHARED_SERVING_FLAGS } from './common-flags';

const PROGRAM = 'svc-scheduler';

/**
 * The scheduler's flag table, in the style of spec 2 and Kubernetes' kube-scheduler: the API server
 * connection (kube-scheduler's client defaults, 50 requests a second with a burst of 100), the secure
 * port 10259 with its health endpoints, leader election on the lease `svc-scheduler`, and the settings
 * kube-scheduler reads from its configuration file, as flags (this product has no such file).
 */
export const SCHEDULER_FLAGS = flagTable({
  program: PROGRAM,
  description:
    'The scheduler places pods on nodes: it watches pods that name it and no node, picks a node that fits each one\n' +
    '(filters), ranks the fitting nodes (scores), and binds the pod to the best one through the API server.',
  groups: [
    { title: 'Generic', flags: [helpFlag(PROGRAM), versionFlag(), ...PROFILING_FLAGS] },
    {
      title: 'Scheduling',
      flags: [
        flag({
          name: 'scheduler-name',
          type: string,
          default: 'default-scheduler',
          help: 'the spec.schedulerName of the pods this scheduler places; pods naming another are left alone',
          check: nonEmpty,
        }),
        flag({
          name: 'percentage-of-nodes-to-score',
          type: int32,
          default: 0,
          help: 'share of the nodes (at least 100) searched for fitting ones before scoring; 0 adapts it to the cluster size (50% less 1% per 125 nodes, at least 5%)',
          check: between(0, 100),
        }),
        flag({
          name: 'pod-initial-backoff-seconds',
          type: int,
          default: 1,
          help: 'wait before a pod that could not be scheduled is tried again; doubled on each further attempt',
          check: atLeast(1),
        }),
        flag({
          name: 'pod-max-backoff-seconds',
          type: int,
          default: 10,
          help: 'longest wait before a pod that could not be scheduled is tried again',
          check: atLeast(1),
        }),
        flag({
          name: 'pod-max-in-unschedulable-pods-duration',
          type: duration,
          default: 300_000,
          help: 'longest a pod that fits nowhere waits for a cluster change before it is tried again anyway',
          check: durationAbove(0),
        }),
      ],
    },
    { title: 'Leader election', flags: leaderElectionFlags('svc-scheduler', ['leases']) },
    { title: 'Client', flags: clientFlags(50, 100) },
    {
      title: 'Authentication',
      flags: [
        flag({
          name: 'authentication-svcconfig',
          type: string,
          help: 'config able to create token reviews; if empty, all token requests are anonymous',
        }),
        flag({ name: 'authentication-token-webhook-cache-ttl', type: duration, default: 10_000, help: 'how long token review answers are cached' }),
      ],
    },
    {
      title: 'Authorization',
      flags: [
        flag({
          name: 'authorization-svcconfig',
          type: string,
          help: 'config able to create access reviews; if empty all requests not skipped are forbidden',
        }),
        flag({
          name: 'authorization-always-allow-paths',
          type: strings,
          default: ['/healthz', '/readyz', '/livez'],
          help: 'paths authorized without asking the core server',
        }),
        flag({ name: 'authorization-webhook-cache-authorized-ttl', type: duration, default: 10_000, help: 'how long authorized answers are cached' }),
        flag({ name: 'authorization-webhook-cache-unauthorized-ttl', type: duration, default: 10_000, help: 'how long unauthorized answers are cached' }),
      ],
    },
    {
      title: 'Secure serving',
      flags: [
        ...SHARED_SERVING_FLAGS,
        flag({
          name: 'cert-dir',
          type: string,
          help: 'directory of the self-signed serving pair (`svc-scheduler.crt`/`.key`) when no pair is given; empty keeps it in memory',
        }),
        flag({
          name: 'secure-port',
          type: int,
          default: 10259,
          help: 'HTTPS port of /healthz, /readyz, /livez and /metrics; 0 disables HTTPS',
          check: between(0, 65535),
        }),
      ],
    },
    { title: 'Feature', flags: [featureGatesFlag({})] },
    { title: 'Logs', flags: [...LOG_FLAGS] },
    { title: 'Metrics', flags: [...METRICS_FLAGS] },
  ],
});

/** The scheduler's parsed options; durations in milliseconds. */
export interface SchedulerOptions extends OptionsOf<typeof SCHEDULER_FLAGS> {}
