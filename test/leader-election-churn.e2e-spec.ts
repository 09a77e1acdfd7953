// A controller manager on a slow client (5 requests a second) with short leader election timings, and
// no fault at all: its lease renewals must never wait behind its controllers' traffic, so it keeps
// its lease, and a Deployment never has more live pods than its replicas plus its surge.
//
// The suite runs one short run: the Deployment's pods alone keep the client saturated for the whole
// window. The full measurement, with rollouts that use the surge, runs on demand:
//   SVC_CHURN_RUNS=5 SVC_CHURN_SECONDS=60 SVC_CHURN_ROLLOUTS=2 npx jest test/leader-election-churn.e2e-spec.ts
// and prints one line of figures per run.
import type { Lease, Pod } from '@svc/api';
import { Client, loadClientConfig } from '@svc/client';
import { PodReadinessSimulator } from '@svc/node-simulation';
import { eventually } from '@svc/runtime/testing';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl as runKubectlOrFail } from './support/kubectl-run';

const RUNS = boundedInt(process.env.SVC_CHURN_RUNS, 1, 1, 10);
const SECONDS = boundedInt(process.env.SVC_CHURN_SECONDS, 20, 5, 120);
/** Rollouts spread evenly over the window, so that the surge is used while the client is saturated. */
const ROLLOUTS = boundedInt(process.env.SVC_CHURN_ROLLOUTS, 0, 0, 5);
const REPLICAS = 50;
/** The default maxSurge of 25%, rounded up as Kubernetes does; only a rollout uses it. */
const SURGE = ROLLOUTS > 0 ? Math.ceil(REPLICAS / 4) : 0;
const LEASE_DURATION_MS = 4_000;
const SLOW_CLIENT = [
  '--svc-api-qps=5',
  '--svc-api-burst=5',
  '--leader-elect-lease-duration=4s',
  '--leader-elect-renew-deadline=3s',
  '--leader-elect-retry-period=1s',
];
/** Each run: the window, then up to a minute and a half to settle at the slow client's pace. */
jest.setTimeout(RUNS * (SECONDS + 150) * 1000);

function boundedInt(text: string | undefined, fallback: number, min: number, max: number): number {
  const n = text === undefined ? fallback : Number.parseInt(text, 10);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`expected an integer from ${min} to ${max}, got ${text}`);
  return n;
}

let apiserver: ApiServerProcess;
let client: Client;
let simulator: PodReadinessSimulator;

beforeAll(async () => {
  apiserver = await startApiServerProcess();
  client = new Client({ ...(await loadClientConfig({ svcconfig: apiserver.kubeconfig })), qps: -1 });
  simulator = await PodReadinessSimulator.start(client);
});

afterAll(async () => {
  await simulator?.stop();
  client?.close();
  await apiserver?.stop();
});

async function kubectl(...args: string[]): Promise<string> {
  return (await runKubectlOrFail(args, apiserver.kubectlEnv, 180_000)).stdout;
}

interface Follower {
  stop(): Promise<void>;
}

/** Follows a watch from a list's resourceVersion, calling `onEvent` for every change. */
async function follow<T>(
  list: () => Promise<{ items: T[]; metadata?: { resourceVersion?: string } }>,
  watch: (resourceVersion?: string) => Promise<AsyncIterable<{ type: string; object: unknown }> & { stop(): void }>,
  onList: (items: T[]) => void,
  onEvent: (type: string, object: T) => void,
): Promise<Follower> {
  const initial = await list();
  onList(initial.items);
  const stream = await watch(initial.metadata?.resourceVersion);
  const done = (async () => {
    for await (const event of stream) {
      if (event.type === 'BOOKMARK') continue;
      onEvent(event.type, event.object as T);
    }
  })();
  return {
    stop: async () => {
      stream.stop();
      await done.catch(() => undefined);
    },
  };
}

interface RunFigures {
  longestRenewGapMs: number;
  settled: boolean;
  settledAfterMs: number;
  mostLivePods: number;
  leaseChanges: string[];
  lostLease: number;
  abandoned: number;
  rollouts: number;
}

async function churnRun(run: number): Promise<RunFigures> {
  const ns = `churn-${run}`;
  const leaseName = `churn-${run}`;
  await kubectl('create', 'namespace', ns);
  const cm: ControllerManagerProcess = await startControllerManagerProcess(apiserver, [...SLOW_CLIENT, `--leader-elect-resource-name=${leaseName}`]);
  const followers: Follower[] = [];
  try {
    await eventually(() => expect(cm.stdout()).toContain('acquired lease'), 20_000);
    const leases = client.leases.inNamespace('svc-system');
    const acquired = await leases.get(leaseName);
    const holder = acquired.spec?.holderIdentity;
    const leaseChanges: string[] = [];
    // A holder that re-acquires its own lease leaves holder and transitions as they were: a gap between
    // two renewals longer than the lease duration is when a standby could have taken over.
    let lastRenewMs = Date.parse(acquired.spec?.renewTime ?? '');
    let longestRenewGapMs = 0;
    followers.push(
      await follow<Lease>(
        () => leases.list({ fieldSelector: `metadata.name=${leaseName}` }),
        (rv) => leases.watch({ fieldSelector: `metadata.name=${leaseName}`, resourceVersion: rv }),
        () => undefined,
        (type, lease) => {
          if (type === 'DELETED') leaseChanges.push('lease deleted');
          else if (lease.spec?.holderIdentity !== holder) leaseChanges.push(`holder became ${JSON.stringify(lease.spec?.holderIdentity)}`);
          else if ((lease.spec?.leaseTransitions ?? 0) !== (acquired.spec?.leaseTransitions ?? 0))
            leaseChanges.push(`${lease.spec?.leaseTransitions} transitions`);
          const renewMs = Date.parse(lease.spec?.renewTime ?? '');
          longestRenewGapMs = Math.max(longestRenewGapMs, renewMs - lastRenewMs);
          lastRenewMs = renewMs;
        },
      ),
    );

    // Every pod event is checked, so a bound broken for a moment is seen.
    const live = new Map<string, Pod>();
    let mostLivePods = 0;
    const count = () => {
      const n = [...live.values()].filter((p) => !p.metadata?.deletionTimestamp).length;
      mostLivePods = Math.max(mostLivePods, n);
    };
    const pods = client.pods.inNamespace(ns);
    followers.push(
      await follow<Pod>(
        () => pods.list(),
        (rv) => pods.watch({ resourceVersion: rv }),
        (items) => items.forEach((p) => live.set(p.metadata!.name!, p)),
        (type, pod) => {
          if (type === 'DELETED') live.delete(pod.metadata!.name!);
          else live.set(pod.metadata!.name!, pod);
          count();
        },
      ),
    );

    const started = Date.now();
    await kubectl('create', 'deployment', 'web', '--image=nginx', `--replicas=${REPLICAS}`, '-n', ns);
    let rollouts = 0;
    for (let i = 1; i <= ROLLOUTS; i++) {
      await sleep(started + (i / (ROLLOUTS + 1)) * SECONDS * 1000 - Date.now());
      await kubectl('rollout', 'restart', 'deployment/web', '-n', ns);
      rollouts++;
    }
    await sleep(started + SECONDS * 1000 - Date.now());
    // The controllers then finish the rollout at the slow client's pace, still within the bounds.
    let settled = true;
    try {
      await kubectl('rollout', 'status', 'deployment/web', '-n', ns, '--timeout=150s');
      await eventually(() => expect([...live.values()].filter((p) => !p.metadata?.deletionTimestamp)).toHaveLength(REPLICAS), 30_000, 100);
    } catch {
      settled = false;
    }

    const log = cm.stdout() + cm.stderr();
    const figures: RunFigures = {
      longestRenewGapMs,
      settled,
      settledAfterMs: Date.now() - started - SECONDS * 1000,
      mostLivePods,
      leaseChanges,
      lostLease: (log.match(/failed to renew lease/g) ?? []).length,
      abandoned: (log.match(/abandon/g) ?? []).length,
      rollouts,
    };
    const after = await leases.get(leaseName);
    if (after.spec?.holderIdentity !== holder) leaseChanges.push(`holder is ${JSON.stringify(after.spec?.holderIdentity)} at the end`);
    if (after.spec?.leaseTransitions !== acquired.spec?.leaseTransitions) leaseChanges.push(`${after.spec?.leaseTransitions} transitions at the end`);
    return figures;
  } finally {
    await Promise.all(followers.map((f) => f.stop()));
    await cm.stop();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

describe('leader election under a saturated controller client', () => {
  it(`keeps its lease and never exceeds replicas plus surge (${RUNS} run(s) of ${SECONDS} s)`, async () => {
    const all: RunFigures[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const figures = await churnRun(run);
      all.push(figures);
      if (process.env.SVC_CHURN_RUNS) {
        process.stdout.write(
          `churn run ${run}: most live pods ${figures.mostLivePods} (bound ${REPLICAS + SURGE}), lease changes ${figures.leaseChanges.length}, ` +
            `longest renewal gap ${figures.longestRenewGapMs} ms, ` +
            `lost lease ${figures.lostLease}, abandoned ${figures.abandoned}, rollouts ${figures.rollouts}, ` +
            `${figures.settled ? `settled ${Math.round(figures.settledAfterMs / 1000)} s after the window` : 'did not settle'}\n`,
        );
      }
    }
    for (const figures of all) {
      expect(figures.leaseChanges).toEqual([]);
      expect(figures.lostLease).toBe(0);
      expect(figures.longestRenewGapMs).toBeLessThan(LEASE_DURATION_MS);
      expect(figures.abandoned).toBe(0);
      expect(figures.mostLivePods).toBeLessThanOrEqual(REPLICAS + SURGE);
      expect(figures.settled).toBe(true);
    }
  });
});
