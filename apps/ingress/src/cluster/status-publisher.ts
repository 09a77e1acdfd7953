import type { Ingress } from '@svc/api';
import type { Client } from '@svc/client';
import { errorMessage, isNotFound } from '@svc/machinery';
import type { IngressView } from './ingress-view';

/**
 * Keeps `status.loadBalancer.ingress` of every served Ingress at this controller's address, as
 * ingress-nginx's status sync does: written when it differs, once per change the informers see (the
 * writes themselves come back as changes, and then find nothing to do).
 */
export class StatusPublisher {
  private running = false;
  private again = false;

  constructor(
    private readonly client: Client,
    private readonly view: IngressView,
    private readonly address: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Schedules a pass; passes never overlap, and a change during one runs another after it. */
  sync(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.pass().finally(() => {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.sync();
      }
    });
  }

  private published(ingress: Ingress): boolean {
    const entries = ingress.status?.loadBalancer?.ingress ?? [];
    return entries.length === 1 && entries[0].ip === this.address && entries[0].hostname === undefined;
  }

  private async pass(): Promise<void> {
    for (const ingress of this.view.servedIngresses()) {
      if (this.published(ingress)) continue;
      const namespace = ingress.metadata?.namespace ?? '';
      const name = ingress.metadata?.name ?? '';
      try {
        await this.client.ingresses.patchStatus(name, { status: { loadBalancer: { ingress: [{ ip: this.address }] } } }, 'merge', { namespace });
      } catch (error) {
        if (!isNotFound(error)) this.log(`could not publish the address of ingress ${namespace}/${name}: ${errorMessage(error)}`);
      }
    }
  }
}
