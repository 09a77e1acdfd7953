import type { AuditBackend } from './audit-backend';
import type { AuditEvent } from './audit-event';

export interface TruncateOptions {
  maxEventSize: number;
  maxBatchSize: number;
  onDiscard?(event: AuditEvent, size: number): void;
}

export const TRUNCATED_ANNOTATION = 'audit.k8s.io/truncated';

/**
 * Kubernetes' truncate backend: an event larger than maxEventSize loses its request and response
 * objects (and says so in an annotation), and is discarded if still too large; a batch larger than
 * maxBatchSize is split, in order.
 */
export function truncatingBackend(delegate: AuditBackend, options: TruncateOptions): AuditBackend {
  return {
    processEvents(events) {
      const batches: AuditEvent[][] = [];
      let current: AuditEvent[] = [];
      let currentSize = 0;
      let accepted = true;
      for (let event of events) {
        let size = Buffer.byteLength(JSON.stringify(event));
        if (size > options.maxEventSize) {
          const { requestObject: _request, responseObject: _response, ...rest } = event;
          event = { ...rest, annotations: { ...event.annotations, [TRUNCATED_ANNOTATION]: 'true' } };
          size = Buffer.byteLength(JSON.stringify(event));
          if (size > options.maxEventSize) {
            options.onDiscard?.(event, size);
            accepted = false;
            continue;
          }
        }
        if (current.length > 0 && currentSize + size > options.maxBatchSize) {
          batches.push(current);
          current = [];
          currentSize = 0;
        }
        current.push(event);
        currentSize += size;
      }
      if (current.length > 0) batches.push(current);
      const results = batches.map((b) => delegate.processEvents(b));
      if (results.every((r) => typeof r === 'boolean')) return accepted && results.every(Boolean);
      return Promise.all(results.map((r) => Promise.resolve(r))).then((all) => accepted && all.every(Boolean));
    },
    shutdown: () => delegate.shutdown(),
  };
}
