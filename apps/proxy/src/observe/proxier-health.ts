import type { Node } from '@svc/api';

/** The taint the cluster autoscaler puts on a node it is about to remove. */
export const TO_BE_DELETED_TAINT = 'ToBeDeletedByClusterAutoscaler';

/**
 * kube-proxy's notion of health: healthy while no change waits longer than `timeoutMs` to be
 * programmed (so a proxy that cannot sync turns unhealthy, one with nothing to do never does), and
 * for /healthz only, while its Node is not being deleted (load balancers then stop sending to it).
 */
export class ProxierHealth {
  private lastUpdated = 0;
  private oldestPending = 0;
  private eligible = true;

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A change arrived that the rules do not show yet. */
  queuedUpdate(): void {
    if (this.oldestPending === 0) this.oldestPending = this.now();
  }

  /** The rules show every change queued before the sync that just succeeded. */
  updated(): void {
    this.oldestPending = 0;
    this.lastUpdated = this.now();
  }

  syncNode(node: Node | undefined): void {
    if (!node) return;
    this.eligible = !node.metadata?.deletionTimestamp && !(node.spec?.taints ?? []).some((t) => t.key === TO_BE_DELETED_TAINT);
  }

  get nodeEligible(): boolean {
    return this.eligible;
  }

  /** Healthy, with the time of the last successful sync and now (ms). */
  status(): { healthy: boolean; lastUpdated: number; now: number } {
    const now = this.now();
    const healthy = this.oldestPending === 0 || now - this.oldestPending < this.timeoutMs;
    return { healthy, lastUpdated: this.lastUpdated, now };
  }
}
