import type { Pod } from '@svc/api';
import type { Client } from '@svc/client';
import { EventRecorder, type EventType } from '@svc/runtime';
import { InFlightLimit } from './in-flight-limit';

/** Events waiting to be written beyond this are dropped, as Kubernetes' event broadcaster drops them when its queue is full. */
const MAX_PENDING_EVENTS = 1_000;
/** Event writes in flight at once; the others wait their turn (Kubernetes' broadcaster writes one at a time). */
const EVENT_WRITES_IN_FLIGHT = 4;

/**
 * The scheduler's Events (Scheduled, FailedScheduling), written in the background: never waited
 * for, never in the way of a binding, and dropped rather than queued without bound.
 */
export class EventSink {
  private readonly recorder: EventRecorder;
  private pending = 0;
  private readonly writes = new InFlightLimit(EVENT_WRITES_IN_FLIGHT);
  dropped = 0;

  constructor(client: Client, component: string) {
    this.recorder = new EventRecorder(client, { component });
  }

  record(pod: Pod, type: EventType, reason: string, message: string): void {
    if (this.pending >= MAX_PENDING_EVENTS) {
      this.dropped++;
      return;
    }
    this.pending++;
    const about = { apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata };
    void this.writes.run(() => this.recorder.event(about, type, reason, message)).finally(() => this.pending--);
  }
}
