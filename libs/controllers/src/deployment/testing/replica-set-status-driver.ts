import type { ReplicaSet } from '@svc/api';
import type { Client } from '@svc/client';
import { isNotFound } from '@svc/machinery';

export interface ReplicaSetStatusDriverOptions {
  /** Pods of one ReplicaSet that turn available per tick. Default 1. */
  step?: number;
  /** The most pods of this ReplicaSet that ever become available (default: all). */
  availableAtMost?: (rs: ReplicaSet) => number;
  /** Every list of the namespace's ReplicaSets, one consistent snapshot each, before statuses are written. */
  onSample?: (replicaSets: ReplicaSet[]) => void;
  tickMs?: number;
}

/**
 * Stands in for the replica set controller in one namespace: every tick it reports each
 * ReplicaSet's spec.replicas as running and `step` more of them available (through the status
 * subresource, as that controller does), and hands each snapshot to `onSample`.
 */
export class ReplicaSetStatusDriver {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  readonly errors: unknown[] = [];

  constructor(
    private readonly client: Client,
    private readonly namespace: string,
    private readonly options: ReplicaSetStatusDriverOptions = {},
  ) {}

  start(): this {
    const tick = () => {
      this.running = this.tick()
        .catch((error: unknown) => void this.errors.push(error))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.options.tickMs ?? 15);
        });
    };
    tick();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async tick(): Promise<void> {
    const list = await this.client.replicaSets.list({ namespace: this.namespace });
    this.options.onSample?.(list.items);
    for (const rs of list.items) {
      const replicas = rs.spec.replicas ?? 1;
      const cap = Math.min(replicas, this.options.availableAtMost?.(rs) ?? replicas);
      const current = rs.status?.availableReplicas ?? 0;
      const available = Math.min(cap, current + (this.options.step ?? 1));
      const status = {
        replicas,
        readyReplicas: available,
        availableReplicas: available,
        fullyLabeledReplicas: replicas,
        observedGeneration: rs.metadata?.generation,
      };
      const seen = rs.status ?? {};
      if (
        seen.replicas === status.replicas &&
        seen.availableReplicas === status.availableReplicas &&
        seen.readyReplicas === status.readyReplicas &&
        seen.observedGeneration === status.observedGeneration
      ) {
        continue;
      }
      await this.client.replicaSets.patchStatus(rs.metadata!.name!, { status }, 'merge', { namespace: this.namespace }).catch((error: unknown) => {
        // Deleted meanwhile (revision history cleanup): nothing to report.
        if (!isNotFound(error)) throw error;
      });
    }
  }
}
