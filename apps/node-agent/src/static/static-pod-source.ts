import { isDeepStrictEqual } from 'node:util';
import type { Pod } from '@svc/api';
import type { Client } from '@svc/client';
import { errorMessage, isAlreadyExists, isConflict, isNotFound } from '@svc/machinery';
import type { PodManager } from '../pods/pod-manager';
import { ANNOTATION_CONFIG_HASH, ANNOTATION_CONFIG_MIRROR, ANNOTATION_CONFIG_SEEN, scanStaticPodDirectory } from './static-pod-files';

function keyOf(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/**
 * The pods of `staticPodPath`, read again every `fileCheckFrequency`: a new file starts a pod, a
 * changed one replaces it, a removed one stops it. Each runs with a mirror pod in the API (same
 * name, annotated `kubernetes.io/config.mirror`) that carries its status; a mirror deleted or
 * changed by anyone is made again, one whose file is gone is deleted.
 */
export class StaticPodSource {
  private pods = new Map<string, Pod>();
  /** Mirror pods of this node as the pod informer sees them, by namespace/name. */
  private readonly mirrors = new Map<string, Pod>();
  private readonly problems = new Map<string, string>();
  private timer?: NodeJS.Timeout;
  private syncing = false;
  private again = false;
  private stopped = false;
  private informerSynced = false;

  constructor(
    private readonly dir: string,
    private readonly nodeName: string,
    private readonly frequencyMs: number,
    private readonly client: Client,
    private readonly workers: PodManager,
    private readonly nodeUid: () => string | undefined,
    private readonly log: (message: string) => void,
  ) {}

  /** Reads the directory once and hands its pods to their workers (before housekeeping may remove their sandboxes). */
  async load(): Promise<void> {
    await this.scan();
    const tick = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        void this.scan()
          .then(() => this.requestMirrorSync())
          .catch((error: unknown) => this.log(`static pods in ${this.dir}: ${errorMessage(error)}`))
          .finally(tick);
      }, this.frequencyMs);
      this.timer.unref();
    };
    tick();
  }

  /** The uid of the mirror pod that carries the status of static pod `pod`, once there is one. */
  mirrorUid(pod: Pod): string | undefined {
    const mirror = this.mirrors.get(keyOf(pod));
    return mirror && this.isMirrorOf(mirror, pod) && !mirror.metadata?.deletionTimestamp ? mirror.metadata?.uid : undefined;
  }

  /** The pod informer listed every pod of the node: mirrors of files that are gone may now be deleted. */
  allowMirrorCleanup(): void {
    this.informerSynced = true;
    this.requestMirrorSync();
  }

  mirrorSeen(mirror: Pod): void {
    const previous = this.mirrors.get(keyOf(mirror));
    this.mirrors.set(keyOf(mirror), mirror);
    if (previous?.metadata?.uid !== mirror.metadata?.uid) {
      // A new mirror: the static pod's status is written to it afresh.
      const pod = [...this.pods.values()].find((p) => keyOf(p) === keyOf(mirror));
      if (pod && this.isMirrorOf(mirror, pod)) this.workers.worker(pod.metadata!.uid!)?.resendStatus();
    }
    this.requestMirrorSync();
  }

  mirrorGone(mirror: Pod): void {
    if (this.mirrors.get(keyOf(mirror))?.metadata?.uid === mirror.metadata?.uid) this.mirrors.delete(keyOf(mirror));
    this.requestMirrorSync();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private isMirrorOf(mirror: Pod, pod: Pod): boolean {
    return mirror.metadata?.annotations?.[ANNOTATION_CONFIG_MIRROR] === pod.metadata?.uid;
  }

  private async scan(): Promise<void> {
    const scan = await scanStaticPodDirectory(this.dir, this.nodeName);
    for (const [file, problem] of scan.problems) {
      // Said once per problem, not at every check.
      if (this.problems.get(file) !== problem) this.log(`static pod ${file}: ${problem}`);
    }
    this.problems.clear();
    for (const [file, problem] of scan.problems) this.problems.set(file, problem);
    const seen = new Date().toISOString();
    for (const [uid, pod] of scan.pods) {
      const known = this.pods.get(uid);
      if (known) {
        scan.pods.set(uid, known);
        continue;
      }
      pod.metadata!.annotations![ANNOTATION_CONFIG_SEEN] = seen;
      this.log(`static pod ${keyOf(pod)} from ${this.dir}`);
      this.workers.upsert(pod);
    }
    for (const [uid, pod] of this.pods) {
      if (scan.pods.has(uid)) continue;
      this.log(`static pod ${keyOf(pod)} removed or changed: stopping it`);
      this.workers.remove(uid);
    }
    const changed = !isDeepStrictEqual([...this.pods.keys()].sort(), [...scan.pods.keys()].sort());
    this.pods = scan.pods;
    if (changed) this.requestMirrorSync();
  }

  private requestMirrorSync(): void {
    if (this.stopped) return;
    if (this.syncing) {
      this.again = true;
      return;
    }
    this.syncing = true;
    void (async () => {
      try {
        do {
          this.again = false;
          await this.syncMirrors().catch((error: unknown) => this.log(`mirror pods: ${errorMessage(error)}`));
        } while (this.again && !this.stopped);
      } finally {
        this.syncing = false;
      }
    })();
  }

  /** The Node is known (or changed): mirror pods waiting for its uid can be made. */
  nodeSeen(): void {
    if (this.pods.size > 0) this.requestMirrorSync();
  }

  private async syncMirrors(): Promise<void> {
    // A mirror pod is owned by its Node, as in Kubernetes: none is made before the Node is known.
    if (!this.nodeUid()) return;
    const wanted = new Map([...this.pods.values()].map((pod) => [keyOf(pod), pod]));
    for (const [key, pod] of wanted) {
      const mirror = this.mirrors.get(key);
      if (mirror && this.isMirrorOf(mirror, pod) && !mirror.metadata?.deletionTimestamp) continue;
      if (mirror) await this.deleteMirror(mirror);
      await this.createMirror(pod);
    }
    if (!this.informerSynced) return;
    for (const [key, mirror] of this.mirrors) if (!wanted.has(key) && !mirror.metadata?.deletionTimestamp) await this.deleteMirror(mirror);
  }

  private async createMirror(pod: Pod): Promise<void> {
    const meta = pod.metadata!;
    const nodeUid = this.nodeUid()!;
    const mirror: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: meta.name,
        namespace: meta.namespace,
        labels: meta.labels,
        annotations: { ...meta.annotations, [ANNOTATION_CONFIG_MIRROR]: meta.annotations?.[ANNOTATION_CONFIG_HASH] ?? meta.uid ?? '' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: nodeUid, controller: true }],
      },
      spec: pod.spec,
    };
    try {
      const created = await this.client.pods.create(mirror, { namespace: meta.namespace });
      this.mirrorSeen(created);
    } catch (error) {
      // Made already (the informer will say so), or the namespace is missing (tried again at the next check).
      if (!isAlreadyExists(error)) this.log(`creating mirror pod ${keyOf(pod)}: ${errorMessage(error)}`);
    }
  }

  private async deleteMirror(mirror: Pod): Promise<void> {
    try {
      await this.client.pods.delete(mirror.metadata?.name ?? '', {
        namespace: mirror.metadata?.namespace,
        gracePeriodSeconds: 0,
        preconditions: { uid: mirror.metadata?.uid },
      });
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
    this.mirrors.delete(keyOf(mirror));
  }
}
