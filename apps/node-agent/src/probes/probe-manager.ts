import type { Container, Pod, Probe } from '@svc/api';
import type { CriClient } from '@svc/cri';
import { runHandler, type ProbeOutcome } from './handler-runner';

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

interface ProbeWorker {
  timer?: NodeJS.Timeout;
  stopped: boolean;
}

/** One probe of one container as it runs: its consecutive results. */
interface ProbeRun {
  pod: Pod;
  container: Container;
  containerId: string;
  kind: ProbeKind;
  probe: Probe;
  worker: ProbeWorker;
  state: ContainerProbeState;
  successes: number;
  failures: number;
}

interface ContainerProbeState {
  podUid: string;
  name: string;
  ready: boolean;
  started: boolean;
  hasReadinessProbe: boolean;
  workers: ProbeWorker[];
}

export interface ProbeListener {
  /** A readiness or startup result changed: the pod's status should be written again. */
  changed(podUid: string): void;
  /** Liveness (or startup) failed past its threshold: the container is to be restarted. */
  unhealthy(podUid: string, containerId: string, kind: ProbeKind, message: string, gracePeriodSeconds?: number): void;
  event(pod: Pod, type: 'Warning', reason: string, message: string): void;
}

/**
 * One worker per probe of each running container, as Kubernetes' prober: the first run after
 * initialDelaySeconds, then every periodSeconds; a result counts once it repeats successThreshold
 * (failureThreshold) times. Until a startup probe succeeds the other probes do not run.
 */
export class ProbeManager {
  private readonly containers = new Map<string, ContainerProbeState>();

  constructor(
    private readonly cri: CriClient,
    private readonly listener: ProbeListener,
  ) {}

  /** Readiness of a container (true when it has no readiness probe and has started). */
  isReady(containerId: string): boolean {
    return this.containers.get(containerId)?.ready ?? false;
  }

  isStarted(containerId: string): boolean {
    return this.containers.get(containerId)?.started ?? false;
  }

  has(containerId: string): boolean {
    return this.containers.has(containerId);
  }

  /**
   * Starts probing a running container. `seed` carries what a previous agent reported for the same
   * container (after a restart of the agent), so that a ready container does not turn unready while
   * its first probe is pending.
   */
  add(pod: Pod, container: Container, containerId: string, startedAtMs: number, podIP: () => string, seed?: { ready?: boolean; started?: boolean }): void {
    if (this.containers.has(containerId)) return;
    const uid = pod.metadata?.uid ?? '';
    const hasStartup = container.startupProbe !== undefined;
    const state: ContainerProbeState = {
      podUid: uid,
      name: container.name,
      started: hasStartup ? (seed?.started ?? false) : true,
      hasReadinessProbe: container.readinessProbe !== undefined,
      ready: container.readinessProbe ? (seed?.ready ?? false) : !hasStartup || (seed?.started ?? false),
      workers: [],
    };
    this.containers.set(containerId, state);
    const probes: Array<[ProbeKind, Probe | undefined]> = [
      ['startup', container.startupProbe],
      ['readiness', container.readinessProbe],
      ['liveness', container.livenessProbe],
    ];
    for (const [kind, probe] of probes) {
      if (!probe) continue;
      const worker: ProbeWorker = { stopped: false };
      state.workers.push(worker);
      this.runWorker(pod, container, containerId, kind, probe, worker, state, startedAtMs, podIP);
    }
  }

  private runWorker(
    pod: Pod,
    container: Container,
    containerId: string,
    kind: ProbeKind,
    probe: Probe,
    worker: ProbeWorker,
    state: ContainerProbeState,
    startedAtMs: number,
    podIP: () => string,
  ): void {
    const periodMs = Math.max(1, probe.periodSeconds ?? 10) * 1000;
    const run: ProbeRun = { pod, container, containerId, kind, probe, worker, state, successes: 0, failures: 0 };
    const tick = async () => {
      if (worker.stopped) return;
      // Only the startup probe runs until it has succeeded; it stops once it has.
      if (kind !== 'startup' && !state.started) return schedule(periodMs);
      if (kind === 'startup' && state.started) return;
      const outcome = await runHandler(this.cri, probe, container, containerId, podIP(), probe.timeoutSeconds ?? 1);
      if (worker.stopped) return;
      if (this.count(run, outcome)) schedule(periodMs);
    };
    const schedule = (delayMs: number) => {
      if (worker.stopped) return;
      worker.timer = setTimeout(() => void tick(), delayMs);
      worker.timer.unref();
    };
    const initialDelayMs = Math.max(0, (probe.initialDelaySeconds ?? 0) * 1000 - (Date.now() - startedAtMs));
    schedule(initialDelayMs);
  }

  /**
   * Counts one result: it is recorded once it repeats successThreshold (failureThreshold) times; a
   * liveness or startup probe failed that often has the container restarted, and stops. Whether the
   * probe goes on.
   */
  private count(run: ProbeRun, outcome: ProbeOutcome): boolean {
    const { kind, probe, state } = run;
    if (outcome.ok) {
      run.failures = 0;
      run.successes++;
      if (run.successes >= Math.max(1, kind === 'readiness' ? (probe.successThreshold ?? 1) : 1)) this.record(state, kind, true);
      return true;
    }
    run.successes = 0;
    run.failures++;
    const label = `${kind[0].toUpperCase()}${kind.slice(1)}`;
    this.listener.event(run.pod, 'Warning', 'Unhealthy', `${label} probe failed: ${outcome.message}`);
    if (run.failures < Math.max(1, probe.failureThreshold ?? 3)) return true;
    if (kind === 'readiness') {
      this.record(state, kind, false);
      return true;
    }
    run.worker.stopped = true;
    const message = `Container ${run.container.name} failed ${kind} probe, will be restarted`;
    this.listener.unhealthy(state.podUid, run.containerId, kind, message, probe.terminationGracePeriodSeconds);
    return false;
  }

  private record(state: ContainerProbeState, kind: ProbeKind, ok: boolean): void {
    if (kind === 'startup') {
      if (state.started === ok) return;
      state.started = ok;
      // Without a readiness probe, a container is ready once started.
      if (!state.hasReadinessProbe) state.ready = ok;
    } else if (kind === 'readiness') {
      if (state.ready === ok) return;
      state.ready = ok;
    } else return;
    this.listener.changed(state.podUid);
  }

  /** Stops probing a container (it exited or is being killed). */
  remove(containerId: string): void {
    const state = this.containers.get(containerId);
    if (!state) return;
    for (const worker of state.workers) {
      worker.stopped = true;
      if (worker.timer) clearTimeout(worker.timer);
    }
    this.containers.delete(containerId);
  }

  /** Stops every probe of a pod but those of `keep`. */
  removePod(podUid: string, keep: ReadonlySet<string> = new Set()): void {
    for (const [id, state] of [...this.containers]) if (state.podUid === podUid && !keep.has(id)) this.remove(id);
  }

  stop(): void {
    for (const id of [...this.containers.keys()]) this.remove(id);
  }
}
