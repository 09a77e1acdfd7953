import type { Container, Pod, PodSpec, PodStatus } from '@svc/api';
import type { RuntimeContainerStatus } from '@svc/cri';
import { computePodStatus, type ContainerFacts, type StatusInputs } from './pod-status';

const NOW = new Date('2027-03-01T12:00:00.000Z');
const EARLIER = '2027-03-01T11:00:00Z';
const NANOS_PER_MS = 1e6;

const app: Container = { name: 'app', image: 'busybox:1.36' };
const init: Container = { name: 'init', image: 'busybox:1.36' };

function pod(spec: Partial<PodSpec> = {}, status?: PodStatus): Pod {
  return { metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [app], ...spec }, ...(status ? { status } : {}) };
}

function running(id: string, attempt = 0): RuntimeContainerStatus {
  return {
    id,
    metadata: { name: 'app', attempt },
    state: 'CONTAINER_RUNNING',
    createdAt: 0,
    startedAt: Date.parse('2027-03-01T11:59:00Z') * NANOS_PER_MS,
    finishedAt: 0,
    exitCode: 0,
    imageRef: 'sha256:abc',
    reason: '',
    message: '',
    logPath: '/logs/app/0.log',
  };
}

function exited(id: string, exitCode: number, extra: Partial<RuntimeContainerStatus> = {}): RuntimeContainerStatus {
  return {
    ...running(id),
    state: 'CONTAINER_EXITED',
    exitCode,
    finishedAt: Date.parse('2027-03-01T11:59:30Z') * NANOS_PER_MS,
    reason: exitCode === 0 ? 'Completed' : 'Error',
    ...extra,
  };
}

interface Case {
  pod: Pod;
  latest?: Record<string, RuntimeContainerStatus>;
  previous?: Record<string, RuntimeContainerStatus>;
  facts?: Record<string, ContainerFacts>;
  messages?: Record<string, string>;
  terminating?: boolean;
  podIPs?: string[];
}

function status(c: Case): PodStatus {
  const inputs: StatusInputs = {
    pod: c.pod,
    observed: { latest: new Map(Object.entries(c.latest ?? {})), previous: new Map(Object.entries(c.previous ?? {})) },
    facts: new Map(Object.entries(c.facts ?? {})),
    messages: new Map(Object.entries(c.messages ?? {})),
    podIPs: c.podIPs ?? [],
    hostIPs: ['192.168.1.10'],
    terminating: c.terminating ?? false,
    now: NOW,
  };
  return computePodStatus(inputs);
}

const ready: ContainerFacts = { ready: true, started: true };
const conditionsOf = (s: PodStatus) => Object.fromEntries((s.conditions ?? []).map((c) => [c.type, c.status]));

describe('the pod status the agent writes', () => {
  it('shows a pod whose containers are not created yet as Pending, ContainerCreating, started now on this host', () => {
    const s = status({ pod: pod() });
    expect(s).toMatchObject({
      phase: 'Pending',
      hostIP: '192.168.1.10',
      hostIPs: [{ ip: '192.168.1.10' }],
      startTime: '2027-03-01T12:00:00Z',
      qosClass: 'BestEffort',
    });
    expect(s.containerStatuses).toEqual([
      {
        name: 'app',
        state: { waiting: { reason: 'ContainerCreating' } },
        lastState: {},
        ready: false,
        restartCount: 0,
        image: 'busybox:1.36',
        imageID: '',
        started: false,
      },
    ]);
    expect(conditionsOf(s)).toEqual({ Initialized: 'True', Ready: 'False', ContainersReady: 'False', PodScheduled: 'True' });
    expect(s.podIP).toBeUndefined();
  });

  it('shows the containers of a pod with init containers as PodInitializing until those have run', () => {
    const s = status({ pod: pod({ initContainers: [init] }) });
    expect(s.initContainerStatuses?.[0].state).toEqual({ waiting: { reason: 'PodInitializing' } });
    expect(s.containerStatuses?.[0].state).toEqual({ waiting: { reason: 'PodInitializing' } });
    expect(s.conditions?.find((c) => c.type === 'Initialized')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotInitialized',
      message: 'containers with incomplete status: [init]',
    });
  });

  it('shows a running, ready container: its id, image, start and restarts, the pod Running and Ready with its IPs', () => {
    const s = status({
      pod: pod(),
      latest: { app: running('c2', 2) },
      previous: { app: exited('c1', 1) },
      facts: { app: ready },
      podIPs: ['10.1.0.7', 'fd00::7'],
    });
    expect(s.phase).toBe('Running');
    expect(s.containerStatuses?.[0]).toMatchObject({
      ready: true,
      started: true,
      restartCount: 2,
      containerID: 'containerd://c2',
      imageID: 'sha256:abc',
      state: { running: { startedAt: '2027-03-01T11:59:00Z' } },
      lastState: { terminated: { exitCode: 1, reason: 'Error', containerID: 'containerd://c1', finishedAt: '2027-03-01T11:59:30Z' } },
    });
    expect(conditionsOf(s)).toEqual({ Initialized: 'True', Ready: 'True', ContainersReady: 'True', PodScheduled: 'True' });
    expect([s.podIP, s.podIPs]).toEqual(['10.1.0.7', [{ ip: '10.1.0.7' }, { ip: 'fd00::7' }]]);
  });

  it('says which containers are not ready, and a running pod being stopped is not ready', () => {
    const unready = status({ pod: pod(), latest: { app: running('c1') }, facts: { app: { ready: false, started: true } } });
    expect(unready.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [app]',
    });
    const stopping = status({ pod: pod(), latest: { app: running('c1') }, facts: { app: ready }, terminating: true });
    expect(stopping.containerStatuses?.[0].ready).toBe(false);
  });

  it('shows a crashed container waiting to restart (CrashLoopBackOff) with its exit as the last state, the pod Running', () => {
    const s = status({
      pod: pod(),
      latest: { app: exited('c3', 2) },
      facts: { app: { ready: false, started: false, waiting: { reason: 'CrashLoopBackOff', message: 'back-off 20s' } } },
      messages: { c3: 'disk full' },
    });
    expect(s.phase).toBe('Running');
    expect(s.containerStatuses?.[0].state).toEqual({ waiting: { reason: 'CrashLoopBackOff', message: 'back-off 20s' } });
    expect(s.containerStatuses?.[0].lastState?.terminated).toMatchObject({ exitCode: 2, reason: 'Error', message: 'disk full' });
  });

  it.each<[string, PodSpec['restartPolicy'], number[], PodStatus['phase']]>([
    ['Never, every container succeeded: Succeeded', 'Never', [0, 0], 'Succeeded'],
    ['Never, one failed: Failed', 'Never', [0, 1], 'Failed'],
    ['OnFailure, every container succeeded: Succeeded', 'OnFailure', [0, 0], 'Succeeded'],
    ['Always, every container succeeded: Running (they restart)', 'Always', [0, 0], 'Running'],
  ])('ends a pod by its restart policy: %s', (_name, restartPolicy, codes, phase) => {
    const side: Container = { name: 'side', image: 'busybox:1.36' };
    const s = status({ pod: pod({ restartPolicy, containers: [app, side] }), latest: { app: exited('a', codes[0]), side: exited('s', codes[1]) } });
    expect(s.phase).toBe(phase);
    if (phase === 'Succeeded' || phase === 'Failed') {
      expect(s.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
      expect(s.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
    }
  });

  it('fails a Never pod whose init container failed, and keeps one of an OnFailure pod Pending', () => {
    const failedInit = { latest: { init: exited('i1', 3) } };
    expect(status({ pod: pod({ restartPolicy: 'Never', initContainers: [init] }), ...failedInit }).phase).toBe('Failed');
    expect(status({ pod: pod({ restartPolicy: 'OnFailure', initContainers: [init] }), ...failedInit }).phase).toBe('Pending');
  });

  it('keeps the start time, and the transition time of a condition that did not change', () => {
    const before = status({ pod: pod(), latest: { app: running('c1') }, facts: { app: ready } });
    const previous: PodStatus = {
      ...before,
      startTime: EARLIER,
      conditions: before.conditions?.map((c) => ({ ...c, lastTransitionTime: EARLIER })),
    };
    const again = status({ pod: pod({}, previous), latest: { app: running('c1') }, facts: { app: { ready: false, started: true } } });
    expect(again.startTime).toBe(EARLIER);
    const times = Object.fromEntries((again.conditions ?? []).map((c) => [c.type, c.lastTransitionTime]));
    expect(times).toEqual({ Initialized: EARLIER, Ready: '2027-03-01T12:00:00Z', ContainersReady: '2027-03-01T12:00:00Z', PodScheduled: EARLIER });
  });

  it('is Ready only when every readiness gate condition is True, and keeps conditions others own', () => {
    const gated = (gateStatus?: 'True' | 'False') =>
      status({
        pod: pod(
          { readinessGates: [{ conditionType: 'example.com/lb' }] },
          gateStatus ? { conditions: [{ type: 'example.com/lb', status: gateStatus }] } : undefined,
        ),
        latest: { app: running('c1') },
        facts: { app: ready },
      });
    expect(gated().conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: 'corresponding condition of pod readiness gate "example.com/lb" does not exist.',
    });
    const passing = gated('True');
    expect(conditionsOf(passing)).toEqual({ Initialized: 'True', Ready: 'True', ContainersReady: 'True', PodScheduled: 'True', 'example.com/lb': 'True' });
  });

  it('reports ephemeral containers apart: their statuses count for neither the phase nor readiness', () => {
    const debug = { name: 'debugger', image: 'busybox:1.36', targetContainerName: 'app' };
    const ready = { ready: true, started: true };
    const s = status({
      pod: pod({ ephemeralContainers: [debug] }),
      latest: { app: running('c1'), debugger: exited('e1', 1) },
      facts: { app: ready, debugger: { ready: false, started: false } },
      podIPs: ['10.1.0.7'],
    });
    expect(s.phase).toBe('Running');
    expect(s.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(s.containerStatuses?.map((c) => c.name)).toEqual(['app']);
    expect(s.ephemeralContainerStatuses).toEqual([
      expect.objectContaining({
        name: 'debugger',
        ready: false,
        restartCount: 0,
        state: { terminated: expect.objectContaining({ exitCode: 1, containerID: 'containerd://e1' }) },
      }),
    ]);
    const waiting = status({ pod: pod({ ephemeralContainers: [debug] }), latest: { app: running('c1') }, facts: { app: ready } });
    expect(waiting.ephemeralContainerStatuses?.[0].state).toEqual({ waiting: { reason: 'ContainerCreating' } });
  });

  it("reports the runtime's reason for an exit (OOMKilled) and the class stored at creation", () => {
    const s = status({ pod: pod({ restartPolicy: 'Never' }, { qosClass: 'Guaranteed' }), latest: { app: exited('c1', 137, { reason: 'OOMKilled' }) } });
    expect(s.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 137, reason: 'OOMKilled' });
    expect(s.qosClass).toBe('Guaranteed');
  });
});
