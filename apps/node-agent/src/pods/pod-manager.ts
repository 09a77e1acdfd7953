import type { Pod } from '@svc/api';
import type { CriClient } from '@svc/cri';
import { errorMessage } from '@svc/machinery';
import { LABEL_MANAGED_BY, LABEL_POD_UID, MANAGED_BY_VALUE } from '../containers/runtime-labels';
import { removeOrphanedPodCgroups, removePodCgroups } from '../containers/pod-cgroups';
import type { PodWorkerContext } from './pod-worker-context';
import { PodWorker } from './pod-worker';
import { runtimeSignature } from './runtime-pod';

/** How often the runtime is listed for changes (Kubernetes' PLEG relists every second). */
const RELIST_MS = 1_000;
/** How often pod cgroups that belong to no pod are looked for (Kubernetes' housekeeping does it every 2 s; this is cheaper). */
const ORPHANED_CGROUPS_MS = 60_000;

/**
 * The pods this node runs, one worker each. Pods come from the API (bound to the node) and from
 * static pod files; a relist of the runtime every second wakes the worker of a pod whose containers
 * changed state; housekeeping removes sandboxes of pods the node no longer has, and pod cgroups left
 * by pods it no longer has.
 */
export class PodManager {
  private readonly workers = new Map<string, PodWorker>();
  private relistTimer?: NodeJS.Timeout;
  private resyncTimer?: NodeJS.Timeout;
  private stopped = false;
  private housekeepingAllowed = false;
  private orphanedCgroupsAt = 0;

  constructor(
    private readonly cri: CriClient,
    private readonly context: PodWorkerContext,
    private readonly syncFrequencyMs: number,
  ) {}

  start(): void {
    const relist = async () => {
      if (this.stopped) return;
      try {
        await this.relist();
      } catch (error) {
        this.context.log(`relisting the runtime: ${errorMessage(error)}`);
      }
      if (!this.stopped) this.relistTimer = setTimeout(() => void relist(), RELIST_MS);
    };
    this.relistTimer = setTimeout(() => void relist(), RELIST_MS);
    this.resyncTimer = setInterval(() => {
      for (const worker of this.workers.values()) worker.requestSync();
    }, this.syncFrequencyMs);
    this.resyncTimer.unref();
  }

  /** From now on, sandboxes of pods this node does not have are removed (after the first full list of pods). */
  allowHousekeeping(): void {
    this.housekeepingAllowed = true;
  }

  pods(): Pod[] {
    return [...this.workers.values()].map((w) => w.current);
  }

  worker(uid: string): PodWorker | undefined {
    return this.workers.get(uid);
  }

  /** A pod was added or changed. */
  upsert(pod: Pod): void {
    const uid = pod.metadata?.uid;
    if (!uid || this.stopped) return;
    const worker = this.workers.get(uid);
    if (worker) worker.update(pod);
    else {
      const created = new PodWorker(pod, this.context, (id) => this.workers.delete(id));
      this.workers.set(uid, created);
      created.requestSync();
    }
  }

  /** A pod is gone from its source without the agent's final delete: its containers are stopped and removed. */
  remove(uid: string): void {
    this.workers.get(uid)?.removed();
  }

  markUnhealthy(podUid: string, containerId: string, message: string, grace?: number): void {
    this.workers.get(podUid)?.markUnhealthy(containerId, message, grace);
  }

  requestSync(podUid: string): void {
    this.workers.get(podUid)?.requestSync();
  }

  private async relist(): Promise<void> {
    const containers = await this.cri.listContainers({ labelSelector: { [LABEL_MANAGED_BY]: MANAGED_BY_VALUE } });
    const sandboxes = await this.cri.listPodSandbox({ labelSelector: { [LABEL_MANAGED_BY]: MANAGED_BY_VALUE } });
    const states = new Map<string, { id: string; state: string }[]>();
    for (const item of [...containers, ...sandboxes]) {
      const uid = item.labels?.[LABEL_POD_UID] ?? '';
      states.set(uid, [...(states.get(uid) ?? []), item]);
    }
    // Each worker compares with what it saw itself, so its own starts and stops wake it no second time.
    for (const [uid, worker] of this.workers) worker.runtimeChanged(runtimeSignature(states.get(uid) ?? []));
    if (!this.housekeepingAllowed) return;
    // Sandboxes of pods this node does not have (deleted while the agent was down) go.
    for (const sandbox of sandboxes) {
      const uid = sandbox.labels?.[LABEL_POD_UID] ?? '';
      if (this.workers.has(uid)) continue;
      for (const c of containers.filter((c) => c.podSandboxId === sandbox.id)) {
        await this.cri.stopContainer(c.id, 0).catch(() => undefined);
        await this.cri.removeContainer(c.id).catch(() => undefined);
      }
      await this.cri.stopPodSandbox(sandbox.id).catch(() => undefined);
      await this.cri.removePodSandbox(sandbox.id).catch(() => undefined);
      void removePodCgroups(uid, this.context.sandbox.cgroupRoot, this.context.sandbox.cgroupsPerQOS);
      await this.context.volumes.tearDown(uid).catch(() => undefined);
    }
    if (Date.now() - this.orphanedCgroupsAt >= ORPHANED_CGROUPS_MS) {
      this.orphanedCgroupsAt = Date.now();
      const known = new Set([...this.workers.keys(), ...sandboxes.map((s) => s.labels?.[LABEL_POD_UID] ?? '')]);
      void removeOrphanedPodCgroups(known, this.context.sandbox.cgroupRoot, this.context.sandbox.cgroupsPerQOS).catch(() => undefined);
    }
  }

  /** Stops the workers without touching the containers: a restarted agent takes them over. */
  stop(): void {
    this.stopped = true;
    if (this.relistTimer) clearTimeout(this.relistTimer);
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    for (const worker of this.workers.values()) worker.stop();
  }
}
