import type { Container, Pod, PodSpec } from '@svc/api';
import type { RuntimeContainerStatus } from '@svc/cri';
import { beyondNewestTwo, planPodActions, type ContainerWaiting, type PodActions, type UnhealthyContainer } from './plan-pod-actions';
import type { PodWorkerState } from './pod-worker-state';
import { ANNOTATION_CONTAINER_HASH, containerHash, LABEL_CONTAINER_NAME } from '../containers/runtime-labels';
import type { RuntimePod } from './runtime-pod';

// The planner is a pure function: each case is a pod, what the worker observed and the time, and
// the actions it plans. No runtime is reached.

const NOW = 1_800_000_000_000;
const SANDBOX = 's2';

const app: Container = { name: 'app', image: 'busybox' };
const side: Container = { name: 'side', image: 'busybox' };
const setup: Container = { name: 'setup', image: 'busybox' };
const migrate: Container = { name: 'migrate', image: 'busybox' };

function pod(spec: Partial<PodSpec> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
    spec: { containers: [app], terminationGracePeriodSeconds: 20, ...spec },
  };
}

interface Running {
  id: string;
  name: string;
  state?: RuntimeContainerStatus['state'];
  attempt?: number;
  exitCode?: number;
  /** When it finished, in ms since the epoch. */
  finishedAt?: number;
  sandbox?: string;
  spec?: Container;
}

function runtimeContainer(c: Running, createdAt: number): RuntimeContainerStatus {
  return {
    id: c.id,
    metadata: { name: c.name, attempt: c.attempt ?? 0 },
    state: c.state ?? 'CONTAINER_RUNNING',
    createdAt,
    startedAt: (NOW - 60_000) * 1e6,
    finishedAt: (c.finishedAt ?? 0) * 1e6,
    exitCode: c.exitCode ?? 0,
    imageRef: 'sha256:1',
    reason: '',
    message: '',
    labels: { [LABEL_CONTAINER_NAME]: c.name },
    annotations: { [ANNOTATION_CONTAINER_HASH]: containerHash(c.spec ?? { ...app, name: c.name }) },
    logPath: `/logs/${c.name}/${c.attempt ?? 0}.log`,
  };
}

/** A runtime holding these containers, newest first (the first listed is the newest), in sandbox s2 unless they say otherwise. */
function runtime(
  containers: Running[],
  sandboxes: Array<{ id: string; ready: boolean; attempt: number }> = [{ id: SANDBOX, ready: true, attempt: 1 }],
): RuntimePod {
  const ready = sandboxes.find((s) => s.ready);
  return {
    sandboxes: sandboxes.map((s, i) => ({
      id: s.id,
      state: s.ready ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY',
      createdAt: 100 - i,
      metadata: { name: 'web', namespace: 'shop', uid: 'u1', attempt: s.attempt },
    })),
    sandboxId: ready?.id,
    sandboxAttempt: ready?.attempt ?? 0,
    podIPs: ready ? ['10.1.0.7'] : [],
    containers: containers.map((c, i) => runtimeContainer(c, 1000 - i)),
    sandboxOf: new Map(containers.map((c) => [c.id, c.sandbox ?? SANDBOX])),
  };
}

const syncing: PodWorkerState = { phase: 'sync', syncedAt: NOW - 120_000, startedAt: NOW - 100_000 };

function plan(
  p: Pod,
  rt: RuntimePod,
  extra: {
    state?: PodWorkerState;
    waiting?: Record<string, ContainerWaiting>;
    unhealthy?: Record<string, UnhealthyContainer>;
    delays?: Record<string, number>;
  } = {},
): PodActions {
  return planPodActions(
    p,
    {
      state: extra.state ?? syncing,
      runtime: rt,
      waiting: new Map(Object.entries(extra.waiting ?? {})),
      unhealthy: new Map(Object.entries(extra.unhealthy ?? {})),
      restartDelays: new Map(Object.entries(extra.delays ?? {})),
    },
    NOW,
  );
}

/** The plan in short: what a case asserts on. */
function summary(a: PodActions) {
  return {
    kill: a.kill.map((k) => `${k.id}/${k.graceSeconds}s${k.container ? '+hooks' : ''}${k.message ? `: ${k.message}` : ''}`),
    createSandbox: a.createSandbox,
    stopSandboxes: a.stopSandboxes,
    startCreated: a.startCreated,
    start: a.start.map((s) => `${s.type} ${s.container.name}#${s.attempt}${s.restartAfter !== undefined ? ` after ${NOW - s.restartAfter}ms` : ''}`),
    probe: a.probe.map((p) => p.status.id),
    unprobe: a.unprobeAll ? 'all' : a.unprobe,
    waiting: Object.fromEntries([...a.waiting].map(([name, w]) => [name, w?.reason ?? null])),
    events: a.events.map((e) => `${e.reason}: ${e.message}`),
    status: a.status,
    removeContainers: a.removeContainers,
    removeSandboxes: a.removeSandboxes,
    teardown: a.teardown,
    retryInMs: a.retryAt === undefined ? undefined : a.retryAt - NOW,
    resync: a.resync,
  };
}

const nothing = {
  kill: [],
  createSandbox: undefined,
  stopSandboxes: [],
  startCreated: [],
  start: [],
  probe: [],
  unprobe: [],
  waiting: {},
  events: [],
  removeContainers: [],
  removeSandboxes: [],
  teardown: undefined,
  retryInMs: undefined,
  resync: false,
};

describe('planPodActions: a pod to run (sync)', () => {
  it.each<[string, Pod, RuntimePod, Partial<ReturnType<typeof summary>>]>([
    [
      'a new pod gets a sandbox and all its containers, counted from 0',
      pod({ containers: [app, side] }),
      runtime([], []),
      { createSandbox: { attempt: 0, replacing: [] }, start: ['regular app#0', 'regular side#0'], status: 'running' },
    ],
    [
      'a new pod with init containers starts the first of them only',
      pod({ initContainers: [setup, migrate] }),
      runtime([], []),
      { createSandbox: { attempt: 0, replacing: [] }, start: ['init setup#0'], status: 'running' },
    ],
    [
      'a pod whose sandbox died: what still runs stops, the old sandboxes go, the next attempt starts afresh',
      pod({ containers: [app, side] }),
      runtime(
        [
          { id: 'c2', name: 'app', attempt: 3, sandbox: 's1' },
          { id: 'c1', name: 'side', state: 'CONTAINER_EXITED', exitCode: 1, sandbox: 's1' },
        ],
        [
          { id: 's1', ready: false, attempt: 1 },
          { id: 's0', ready: false, attempt: 0 },
        ],
      ),
      {
        kill: ['c2/0s+hooks: Stopping container app'],
        createSandbox: { attempt: 2, replacing: ['s1', 's0'] },
        start: ['regular app#0', 'regular side#0'],
      },
    ],
  ])('%s', (_name, p, rt, expected) => {
    expect(summary(plan(p, rt))).toEqual({ ...nothing, status: 'running', ...expected });
  });

  it.each<[string, Pod, Running[], Partial<ReturnType<typeof summary>>]>([
    ['a running container is kept and probed', pod(), [{ id: 'c1', name: 'app' }], { probe: ['c1'], waiting: { app: null } }],
    [
      'a container missing from the sandbox is started, counting on from its last attempt elsewhere',
      pod({ containers: [app, side] }),
      [
        { id: 'c2', name: 'app' },
        { id: 'c1', name: 'side', attempt: 4, state: 'CONTAINER_EXITED', sandbox: 's1' },
      ],
      { probe: ['c2'], start: ['regular side#5'], waiting: { app: null } },
    ],
    ['a container created but never started is started', pod(), [{ id: 'c1', name: 'app', state: 'CONTAINER_CREATED' }], { startCreated: ['c1'] }],
    [
      'the running init container is waited for; the containers are not looked at',
      pod({ initContainers: [setup, migrate] }),
      [{ id: 'i1', name: 'setup' }],
      { waiting: { setup: null } },
    ],
    [
      'the next init container starts once the one before succeeded',
      pod({ initContainers: [setup, migrate] }),
      [{ id: 'i1', name: 'setup', state: 'CONTAINER_EXITED', exitCode: 0, finishedAt: NOW - 5_000 }],
      { start: ['init migrate#0'], waiting: { setup: null } },
    ],
    [
      'an init container created but never started is started',
      pod({ initContainers: [setup] }),
      [{ id: 'i1', name: 'setup', state: 'CONTAINER_CREATED' }],
      { startCreated: ['i1'], waiting: { setup: null } },
    ],
    [
      'the containers start once every init container succeeded',
      pod({ initContainers: [setup], containers: [app] }),
      [{ id: 'i1', name: 'setup', state: 'CONTAINER_EXITED', exitCode: 0, finishedAt: NOW - 5_000 }],
      { start: ['regular app#0'], waiting: { setup: null } },
    ],
    [
      'a failed init container of a Never pod stays failed: nothing more starts',
      pod({ initContainers: [setup], restartPolicy: 'Never' }),
      [{ id: 'i1', name: 'setup', state: 'CONTAINER_EXITED', exitCode: 2, finishedAt: NOW - 5_000 }],
      {},
    ],
    [
      'a failed init container of an OnFailure pod is restarted (no backoff yet)',
      pod({ initContainers: [setup], restartPolicy: 'OnFailure' }),
      [{ id: 'i1', name: 'setup', state: 'CONTAINER_EXITED', exitCode: 2, attempt: 1, finishedAt: NOW - 5_000 }],
      { start: ['init setup#2 after 5000ms'] },
    ],
    [
      'an exited container of an Always pod is restarted once no backoff holds it',
      pod(),
      [{ id: 'c1', name: 'app', state: 'CONTAINER_EXITED', exitCode: 0, attempt: 2, finishedAt: NOW - 1_000 }],
      { start: ['regular app#3 after 1000ms'], unprobe: ['c1'] },
    ],
    [
      'a container that succeeded in an OnFailure pod is left as it is',
      pod({ restartPolicy: 'OnFailure' }),
      [{ id: 'c1', name: 'app', state: 'CONTAINER_EXITED', exitCode: 0, finishedAt: NOW - 1_000 }],
      { unprobe: ['c1'], waiting: { app: null } },
    ],
    [
      'a container that failed in a Never pod is left as it is',
      pod({ restartPolicy: 'Never' }),
      [{ id: 'c1', name: 'app', state: 'CONTAINER_EXITED', exitCode: 1, finishedAt: NOW - 1_000 }],
      { unprobe: ['c1'], waiting: { app: null } },
    ],
  ])('%s', (_name, p, containers, expected) => {
    expect(summary(plan(p, runtime(containers)))).toEqual({ ...nothing, status: 'running', ...expected });
  });

  it('kills a container whose probe failed, with the probe grace period, and syncs again to restart it', () => {
    const actions = plan(pod(), runtime([{ id: 'c1', name: 'app' }]), {
      unhealthy: { c1: { message: 'Container app failed liveness probe, will be restarted', graceSeconds: 5 } },
    });
    expect(summary(actions)).toEqual({
      ...nothing,
      status: 'running',
      kill: ['c1/5s+hooks: Container app failed liveness probe, will be restarted'],
      waiting: { app: null },
      resync: true,
    });
    const podGrace = plan(pod(), runtime([{ id: 'c1', name: 'app' }]), { unhealthy: { c1: { message: 'failed startup probe' } } });
    expect(podGrace.kill[0].graceSeconds).toBe(20);
  });

  it('kills a container whose spec changed (its image), with the pod grace period', () => {
    const changed = pod({ containers: [{ ...app, image: 'busybox:2' }] });
    expect(summary(plan(changed, runtime([{ id: 'c1', name: 'app', spec: app }]))).kill).toEqual([
      'c1/20s+hooks: Container app definition changed, will be restarted',
    ]);
  });

  it('holds a crashed container in CrashLoopBackOff until its backoff has passed, and syncs again then', () => {
    const crashed = runtime([{ id: 'c1', name: 'app', state: 'CONTAINER_EXITED', exitCode: 1, attempt: 3, finishedAt: NOW - 15_000 }]);
    const actions = plan(pod(), crashed, { delays: { app: 40_000 } });
    expect(summary(actions)).toEqual({
      ...nothing,
      status: 'running',
      unprobe: ['c1'],
      waiting: { app: 'CrashLoopBackOff' },
      events: ['BackOff: Back-off restarting failed container'],
      retryInMs: 25_000,
    });
    expect(actions.waiting.get('app')?.message).toBe('back-off 40s restarting failed container=app pod=web_shop(u1)');
    // Already waiting in CrashLoopBackOff: no second event.
    expect(plan(pod(), crashed, { delays: { app: 40_000 }, waiting: { app: { reason: 'CrashLoopBackOff' } } }).events).toEqual([]);
    // Once the delay has passed it starts, and the backoff grows from that exit.
    expect(summary(plan(pod(), crashed, { delays: { app: 10_000 } })).start).toEqual(['regular app#4 after 15000ms']);
  });

  it('starts each ephemeral container once, even before the pod is initialized, and never again whatever became of it', () => {
    const debug = { name: 'debugger', image: 'busybox', targetContainerName: 'app' };
    const withDebug = pod({ ephemeralContainers: [debug] });
    const fresh = plan(withDebug, runtime([{ id: 'c1', name: 'app' }]));
    expect(summary(fresh).start).toEqual(['ephemeral debugger#0']);
    expect(fresh.start[0].targetContainerName).toBe('app');
    const initializing = pod({ initContainers: [setup], ephemeralContainers: [debug] });
    expect(summary(plan(initializing, runtime([{ id: 'i1', name: 'setup' }]))).start).toEqual(['ephemeral debugger#0']);
    for (const state of ['CONTAINER_RUNNING', 'CONTAINER_EXITED'] as const) {
      const ran = runtime([
        { id: 'e1', name: 'debugger', state, exitCode: 1 },
        { id: 'c1', name: 'app' },
      ]);
      expect(summary(plan(withDebug, ran)).start).toEqual([]);
    }
  });

  it('syncs again when the first backoff ends, never sooner than a moment from now', () => {
    const p = pod({ containers: [app, side] });
    const rt = runtime([
      { id: 'c2', name: 'side', state: 'CONTAINER_EXITED', exitCode: 1, finishedAt: NOW - 9_999 },
      { id: 'c1', name: 'app', state: 'CONTAINER_EXITED', exitCode: 1, finishedAt: NOW - 5_000 },
    ]);
    expect(summary(plan(p, rt, { delays: { app: 20_000, side: 10_000 } })).retryInMs).toBe(10);
    expect(summary(plan(p, rt, { delays: { app: 20_000, side: 80_000 } })).retryInMs).toBe(15_000);
  });

  it('prunes exited containers beyond the newest two of each name', () => {
    expect(plan(pod(), runtime([{ id: 'c1', name: 'app' }])).prune).toBe(true);
    const rt = runtime([
      { id: 'a4', name: 'app' },
      { id: 'a3', name: 'app', state: 'CONTAINER_EXITED' },
      { id: 'b2', name: 'side', state: 'CONTAINER_EXITED' },
      { id: 'a2', name: 'app', state: 'CONTAINER_EXITED' },
      { id: 'a1', name: 'app', state: 'CONTAINER_EXITED' },
      { id: 'b1', name: 'side', state: 'CONTAINER_EXITED' },
    ]);
    expect(beyondNewestTwo(rt)).toEqual(['a2', 'a1']);
  });
});

describe('planPodActions: a pod being stopped (terminating)', () => {
  const running = runtime([
    { id: 'c3', name: 'app' },
    { id: 'c2', name: 'side', state: 'CONTAINER_CREATED' },
    { id: 'c1', name: 'app', state: 'CONTAINER_EXITED' },
    { id: 'x1', name: 'unknown-to-the-spec' },
  ]);

  it.each<[string, PodWorkerState, Partial<ReturnType<typeof summary>>]>([
    [
      'a deleted pod: every running container runs its preStop hook within the grace period, and probes stop',
      { ...syncing, phase: 'terminating', terminatingAt: NOW, reason: 'deleted', gracePeriodSeconds: 7 },
      {
        kill: ['c3/7s+hooks: Stopping container app', 'c2/7s+hooks: Stopping container side', 'x1/7s'],
        unprobe: 'all',
      },
    ],
    [
      'a pod removed from its source: the same',
      { ...syncing, phase: 'terminating', terminatingAt: NOW, reason: 'removed', gracePeriodSeconds: 0 },
      {
        kill: ['c3/0s+hooks: Stopping container app', 'c2/0s+hooks: Stopping container side', 'x1/0s'],
        unprobe: 'all',
      },
    ],
    [
      'a finished pod: what still runs stops at once, without hooks, and its sandbox stops',
      { ...syncing, phase: 'terminating', terminatingAt: NOW, reason: 'finished', gracePeriodSeconds: 0 },
      { kill: ['c3/0s', 'c2/0s', 'x1/0s'], stopSandboxes: [SANDBOX] },
    ],
  ])('%s', (_name, state, expected) => {
    expect(summary(plan(pod({ containers: [app, side] }), running, { state }))).toEqual({ ...nothing, status: 'none', ...expected });
  });
});

describe('planPodActions: a pod whose containers stopped (terminated)', () => {
  const stopped = runtime(
    [
      { id: 'c2', name: 'app', state: 'CONTAINER_EXITED' },
      { id: 'c1', name: 'app', state: 'CONTAINER_EXITED' },
    ],
    [
      { id: 's2', ready: false, attempt: 1 },
      { id: 's1', ready: false, attempt: 0 },
    ],
  );
  const terminated = (reason: PodWorkerState['reason']): PodWorkerState => ({
    ...syncing,
    phase: 'terminated',
    terminatingAt: NOW - 5_000,
    terminatedAt: NOW - 1_000,
    reason,
    gracePeriodSeconds: 0,
  });

  it('keeps a finished pod as it is: nothing runs, its containers stay for their logs', () => {
    expect(summary(plan(pod(), stopped, { state: terminated('finished') }))).toEqual({ ...nothing, status: 'none' });
    expect(summary(plan(pod(), runtime([{ id: 'c3', name: 'app' }]), { state: terminated('finished') }))).toEqual({
      ...nothing,
      status: 'none',
      kill: ['c3/0s'],
      stopSandboxes: [SANDBOX],
    });
  });

  it.each<[PodWorkerState['reason'], boolean]>([
    ['deleted', true],
    ['removed', false],
  ])('removes everything of a %s pod after its final status (final delete: %s)', (reason, finalDelete) => {
    expect(summary(plan(pod(), stopped, { state: terminated(reason) }))).toEqual({
      ...nothing,
      status: 'final',
      removeContainers: ['c2', 'c1'],
      removeSandboxes: ['s2', 's1'],
      teardown: { finalDelete },
    });
  });
});
