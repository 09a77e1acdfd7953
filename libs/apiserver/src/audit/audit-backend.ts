import type { AuditEvent } from './audit-event';

/**
 * Where events go. `processEvents` answers whether the events were accepted; a promise means the
 * caller may wait for them to be written (blocking modes) or ignore it (batch mode, which never
 * returns one).
 */
export interface AuditBackend {
  processEvents(events: AuditEvent[]): boolean | Promise<boolean>;
  /** Writes what is buffered, within the backend's own bounds, and releases files and timers. */
  shutdown(): Promise<void>;
}

/** Several backends (the log and the webhook) as one: accepted only when every one accepted. */
export function unionBackend(backends: AuditBackend[]): AuditBackend {
  if (backends.length === 1) return backends[0];
  return {
    processEvents(events) {
      const results = backends.map((b) => b.processEvents(events));
      if (results.every((r) => typeof r === 'boolean')) return results.every(Boolean);
      return Promise.all(results.map((r) => Promise.resolve(r))).then((all) => all.every(Boolean));
    },
    async shutdown() {
      await Promise.all(backends.map((b) => b.shutdown()));
    },
  };
}
